import FoundationEssentials
import MainLoop

/// Finishes pushes already taken (recorded in the `PushLedger`, so no sender will send them again):
/// the MQTT intake's, acknowledged to the broker, and those a stopped process left pending. Each
/// wakes the agent in charge; while the session does not come back it is tried again with backoff
/// for up to `retryWindow` seconds, then released with a warning (the agent's own reconnects still
/// bring back a call that is still ringing).
///
/// Runs on: any thread; each push is a `Task` that awaits the agent.
final class TakenPushDelivery: Sendable {
    /// Seconds a taken push is retried while the session does not come back.
    static let retryWindow: Double = 600
    private let host: AgentHost

    init(host: AgentHost) { self.host = host }

    /// Wakes the agent with `payload` (in the background), retrying while it is not connected.
    func deliver(_ payload: PushPayload, source: PushSource) {
        let host = self.host
        Task {
            var backoff = Backoff(base: 1, cap: 30)
            let started = FileDescriptorIO.monotonicNow()
            while true {
                let result = await host.current.wake(taken: payload, source: source)
                guard result.outcome == .notConnected else { return }
                guard FileDescriptorIO.monotonicNow() - started < Self.retryWindow else {
                    Log.warning("push", "push for call \(payload.callId) (\(source.rawValue)): the session did not come back "
                                + "within \(Int(Self.retryWindow)) s; giving it up")
                    host.current.pushLedger.release(payload.callId)
                    return
                }
                try? await Task.sleep(for: .seconds(max(0.5, backoff.next())))
            }
        }
    }

    /// Delivers the pushes a stopped process had taken but not finished.
    func resumePending(_ ledger: PushLedger) {
        let pending = ledger.pending()
        guard !pending.isEmpty else { return }
        Log.notice("push", "\(pending.count) push(es) taken before the last stop were not finished; handling them now")
        for (payload, source) in pending { deliver(payload, source: PushSource(ledgerName: source)) }
    }
}
