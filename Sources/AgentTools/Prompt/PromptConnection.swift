import AgentCore
import FoundationEssentials
import Glibc
import Synchronization

/// The prompt's two connections to the daemon: `events` (subscribed, read by the event thread)
/// and `requests` (verbs, used by the input thread). When the daemon goes away (a restart, a
/// package upgrade) both are replaced together once it is back, so a terminal left ringing keeps
/// ringing after the next upgrade.
///
/// Runs on: the prompt's two threads. Each client sits in its own `Mutex` and is used inside it
/// (`withEvents`, `withRequests`), so a `ControlClient` (one thread at a time) is never used by
/// two threads at once and never outlives a swap; checked Sendable.
final class PromptConnection: Sendable {
    let path: String
    private let eventsClient: Mutex<ControlClient>
    private let requestsClient: Mutex<ControlClient>

    /// Connects both; throws `ControlClientError.daemonNotRunning` when nothing listens at `path`.
    init(path: String) throws {
        self.path = path
        let events = try ControlClient.connect(path: path, timeout: 5)
        let requests: ControlClient
        do {
            requests = try ControlClient.connect(path: path, timeout: 5)
        } catch {
            events.close()
            throw error
        }
        eventsClient = Mutex(events)
        requestsClient = Mutex(requests)
    }

    /// Runs `body` with the events client (the event thread's).
    func withEvents<Result: Sendable>(_ body: (ControlClient) throws -> Result) throws -> Result {
        try eventsClient.withLock { client in try body(client) }
    }

    /// Runs `body` with the requests client (the input thread's).
    func withRequests<Result: Sendable>(_ body: (ControlClient) throws -> Result) throws -> Result {
        try requestsClient.withLock { client in try body(client) }
    }

    /// Closes both connections, then connects again every `interval` seconds until both are back
    /// (true) or `stopped()` says the prompt is leaving (false).
    func reconnect(interval: Double = 0.25, stopped: () -> Bool) -> Bool {
        close()
        while !stopped() {
            if (try? replaceBoth()) != nil { return true }
            usleep(useconds_t(interval * 1_000_000))
        }
        return false
    }

    /// Closes both connections, without waiting: a client that its thread is using right now
    /// (the event thread waits up to 0.5 s for an event) is left to that thread, which closes it
    /// when it stops (`closeEvents`). Never closes a descriptor another thread is polling.
    func close() {
        _ = eventsClient.withLockIfAvailable { $0.close() }
        _ = requestsClient.withLockIfAvailable { $0.close() }
    }

    /// Closes the events client (the event thread, as it stops).
    func closeEvents() {
        eventsClient.withLock { $0.close() }
    }

    /// Connects a new events client, then a new requests client, each made inside its lock (so
    /// it goes straight to its owner); when the second fails, the first is closed again.
    private func replaceBoth() throws {
        try eventsClient.withLock { [path] client in client = try ControlClient.connect(path: path, timeout: 5) }
        do {
            try requestsClient.withLock { [path] client in client = try ControlClient.connect(path: path, timeout: 5) }
        } catch {
            eventsClient.withLock { $0.close() }
            throw error
        }
    }
}
