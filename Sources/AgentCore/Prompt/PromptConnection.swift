import Foundation

/// The prompt's two connections to the daemon: `events` (subscribed, read by the event thread)
/// and `requests` (verbs, used by the input thread). When the daemon goes away (a restart, a
/// package upgrade) both are replaced together once it is back, so a terminal left ringing keeps
/// ringing after the next upgrade.
///
/// Shared by the prompt's two threads; the pair is guarded by a lock and a thread always uses the
/// client it read last (a stale one fails and is replaced on the next attach).
final class PromptConnection: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var eventsClient: ControlClient  // guarded by lock
    private var requestsClient: ControlClient  // guarded by lock

    /// Connects both; throws `ControlClientError.daemonNotRunning` when nothing listens at `path`.
    init(path: String) throws {
        self.path = path
        eventsClient = try ControlClient.connect(path: path, timeout: 5)
        do { requestsClient = try ControlClient.connect(path: path, timeout: 5) } catch {
            eventsClient.close()
            throw error
        }
    }

    var events: ControlClient { lock.withLock { eventsClient } }
    var requests: ControlClient { lock.withLock { requestsClient } }

    /// Closes both connections, then connects again every `interval` seconds until that works
    /// (true) or `stopped()` says the prompt is leaving (false).
    func reconnect(interval: Double = 0.25, stopped: () -> Bool) -> Bool {
        close()
        while !stopped() {
            if let fresh = try? PromptConnection(path: path) {
                lock.withLock {
                    eventsClient = fresh.eventsClient
                    requestsClient = fresh.requestsClient
                }
                return true
            }
            usleep(useconds_t(interval * 1_000_000))
        }
        return false
    }

    func close() {
        lock.withLock {
            eventsClient.close()
            requestsClient.close()
        }
    }
}
