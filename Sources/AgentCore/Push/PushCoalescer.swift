import MainLoop
import WCSSession

/// Coalesces concurrent pushes for one call: the first starts the intake (the agent's wake),
/// the others wait for that same answer instead of queueing more work on the agent.
///
/// Runs on: the loop thread (`@MainLoopActor`), like the webhook it serves; the intake itself
/// runs in a `Task` off the loop, and its answer is delivered back on the loop. Once answered,
/// the call id is forgotten here; later pushes reach the agent, which answers `duplicate`.
@MainLoopActor
final class PushCoalescer {
    typealias Waiter = @MainLoopActor (JSONValue) -> Void

    private let intake: PushWebhookServer.Intake
    private var waiting: [String: [Waiter]] = [:]

    nonisolated init(intake: @escaping PushWebhookServer.Intake) { self.intake = intake }

    /// Pushes whose intake is running, by call id.
    var inFlight: Int { waiting.count }

    /// Hands `payload` to the intake, or joins the intake already running for its call id;
    /// `answer` gets the intake's answer on the loop thread.
    func submit(_ payload: PushPayload, answer: @escaping Waiter) {
        if waiting[payload.callId] != nil {
            waiting[payload.callId]?.append(answer)
            Log.debug("push", "webhook: push for call \(payload.callId) joins the one in progress")
            return
        }
        waiting[payload.callId] = [answer]
        let intake = self.intake
        Task { @MainLoopActor [weak self] in
            let reply = await intake(payload)
            guard let self else { return }
            for waiter in self.waiting.removeValue(forKey: payload.callId) ?? [] { waiter(reply) }
        }
    }
}
