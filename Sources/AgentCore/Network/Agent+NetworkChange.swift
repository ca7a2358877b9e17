import MainLoop

/// The agent's answer to a network change (on the agent actor; `NetworkChangeMonitor` reports from
/// the loop). WCS has no ICE restart and a dead TCP path is otherwise noticed only after the probe
/// window, so the agent acts at once, through the entry point a push uses (`wake`, as the agent's own
/// attempt: a token refused then waits for the reconnect spread, see `ReconnectSchedule`):
/// - online, and the socket's path no longer holds (its local address is gone, or the route to the
///   server now leaves from another address): drop the socket and resume by token now;
/// - online and the path still holds: nothing (a change elsewhere, or a flap the TCP connection survives);
/// - waiting to retry: retry now (the change may have brought the path back), unless the wait is the
///   reconnect spread after a loss the server caused (a change on our side does not end that);
/// - asleep, stopping, failed, registration failed: nothing (no automatic connection in those states).
/// Calls are kept as after any socket loss: one whose media path still works goes on; one whose
/// media stopped ends through the media timeout with its own end result.
extension Agent {
    /// Reacts to one batch of changes (`[agent] watch_network = false` turns this off).
    public func networkChanged(_ change: NetworkChange) async {
        guard config.watchNetwork else { return }
        switch phase {
        case .online:
            guard let routed = await session.pathStillRouted(), !routed, phase == .online else { return }
            let path = await session.socketPath().map { " (\($0))" } ?? ""
            Log.notice("agent", "network change (\(change)): the path to the server no longer holds\(path); resuming by token now")
            connectedSince = nil
            lastError = "the network path to the server changed"
            phase = .waitingToRetry
            publishEvent(.disconnected(reason: "network path changed"))
            await session.disconnect()
            _ = await wake(reason: "network change", explicit: false)
        case .waitingToRetry where waitingForSpread:
            Log.info("agent", "network change (\(change)) while waiting out the reconnect spread; still waiting")
        case .waitingToRetry:
            Log.info("agent", "network change (\(change)) while waiting to retry; retrying now")
            _ = await wake(reason: "network change", explicit: false)
        default:
            Log.debug("agent", "network change (\(change)) while \(phase.rawValue); nothing to do")
        }
    }
}
