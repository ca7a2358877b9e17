import Foundation

// The tests' one wait helper: poll a condition until it holds or a deadline passes. The timeout
// only keeps a broken build from hanging; tests assert what happened, never how fast.

/// Polls `condition` every `interval` seconds (sleeping the thread) until it holds or `timeout`
/// seconds pass; true when it held. A throwing condition counts as not yet.
/// Not from async code: there a plain closure would pick this overload and block a thread of the
/// cooperative pool (two on this machine) that the awaited work may need; await the async one.
@available(*, noasync, message: "blocks a cooperative-pool thread; await eventually with an async closure")
public func eventually(timeout: Double = 10, interval: Double = 0.005, _ condition: () throws -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if (try? condition()) == true { return true }
        usleep(useconds_t(interval * 1_000_000))
    }
    return (try? condition()) == true
}

/// Polls `condition` every `interval` seconds (sleeping the task) until it holds or `timeout`
/// seconds pass; true when it held. A throwing condition counts as not yet.
public func eventually(timeout: Double = 10, interval: Double = 0.005, isolation: isolated (any Actor)? = #isolation,
                       _ condition: () async throws -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
    }
    return (try? await condition()) == true
}

/// `eventually`, throwing `EventuallyTimeout` naming `what` (and `context()`, e.g. a process's log)
/// when the condition does not hold in time.
public func requireEventually(_ what: String, timeout: Double = 15, interval: Double = 0.05, context: () -> String = { "" },
                    _ condition: () throws -> Bool) throws {
    guard eventually(timeout: timeout, interval: interval, condition) else {
        let detail = context()
        throw EventuallyTimeout(description: "timed out waiting for \(what)" + (detail.isEmpty ? "" : "\n\(detail)"))
    }
}

/// What `requireEventually` throws when its condition did not hold in time.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let description: String
}
