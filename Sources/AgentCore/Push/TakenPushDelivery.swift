import FoundationEssentials
import MainLoop
import Synchronization

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
    private let running = Mutex(RunningDeliveries())

    init(host: AgentHost) { self.host = host }

    /// Wakes the agent with `payload` (in the background), retrying while it is not connected.
    func deliver(_ payload: PushPayload, source: PushSource) {
        let host = self.host
        let id = running.withLock { r in r.next += 1; return r.next }
        let task = Task { [weak self] in
            defer { self?.running.withLock { _ = $0.tasks.removeValue(forKey: id) } }
            var backoff = Backoff(base: 1, cap: 30)
            let started = MonotonicTime.now()
            while true {
                let result = await host.current.wake(taken: payload, source: source)
                guard result.outcome == .notConnected else { return }
                guard MonotonicTime.now() - started < Self.retryWindow else {
                    Log.warning("push", "push for call \(payload.callId) (\(source.rawValue)): the session did not come back "
                                + "within \(Int(Self.retryWindow)) s; giving it up")
                    host.current.pushLedger.release(payload.callId)
                    return
                }
                try? await Task.sleep(for: .seconds(max(0.5, backoff.next())))
                guard !Task.isCancelled else { return }
            }
        }
        running.withLock { r in if r.tasks[id] == nil && !task.isCancelled { r.tasks[id] = task } }
    }

    /// At a clean stop (after the intakes stopped taking pushes): lets the deliveries in progress
    /// finish, for at most `seconds`, so a push being handled ends with its record instead of
    /// being handled again at the next start.
    func drain(within seconds: Double) async {
        let tasks = running.withLock { Array($0.tasks.values) }
        guard !tasks.isEmpty else { return }
        Log.info("push", "finishing \(tasks.count) push(es) in progress before stopping")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for task in tasks { await task.value } }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
            await group.next()
            group.cancelAll()
        }
        for task in tasks { task.cancel() }
    }

    /// Delivers the pushes a stopped process had taken but not finished.
    func resumePending(_ ledger: PushLedger) {
        let pending = ledger.pending()
        guard !pending.isEmpty else { return }
        Log.notice("push", "\(pending.count) push(es) taken before the last stop were not finished; handling them now")
        for (payload, source) in pending { deliver(payload, source: PushSource(ledgerName: source)) }
    }
}

/// The deliveries in progress, by a local id.
private struct RunningDeliveries: Sendable {
    var next = 0
    var tasks: [Int: Task<Void, Never>] = [:]
}
