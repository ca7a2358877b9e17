import Synchronization
import WCSSession

/// Forwards agent events to the control server's subscribers once the server exists. Agents
/// publish from their actor while the daemon attaches the server from its main task, so the one
/// shared reference sits in a `Mutex`; `broadcast` itself never blocks.
final class EventBroadcaster: Sendable {
    private let server = Mutex<ControlServer?>(nil)

    func attach(_ server: ControlServer) {
        self.server.withLock { $0 = server }
    }

    func send(_ event: JSONValue) {
        server.withLock { $0 }?.broadcast(event)
    }
}
