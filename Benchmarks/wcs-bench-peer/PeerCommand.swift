import Foundation

/// One stdin command of wcs-bench-peer (a JSON object per line):
/// - `{"op":"offer","id":"c1"}`: create call c1's media, reply `{"id","offer"}` (SDP with candidates);
/// - `{"op":"answer","id":"c1","sdp":"..."}`: apply the agent's answer; `{"id","event":"first_audio","ms"}`
///   follows when the first frame from the agent is decoded (`ms` since the answer was applied);
/// - `{"op":"answer_offer","id":"c1","sdp":"..."}`: answer another peer's offer, reply `{"id","answer"}`;
/// - `{"op":"stats"}`: reply `{"event":"stats","cpu_seconds","rss_kb","calls":[...]}`;
/// - `{"op":"close","id":"c1"}`: end that call's media; `{"op":"quit"}`: close everything and exit.
/// Failures are reported as `{"id","event":"failed","reason"}` or `{"error"}`.
struct PeerCommand: Decodable, Sendable {
    /// The verb: offer, answer, answer_offer, stats, close or quit.
    let op: String
    /// The call this command is about (offer, answer, close).
    let id: String?
    /// The agent's answer SDP (answer) or another peer's offer (answer_offer).
    let sdp: String?
}

/// Writes one JSON object per line to stdout; safe from any thread (one lock around each line).
final class PeerOutput: Sendable {
    private let lock = NSLock()

    /// Emits `object` as one line and flushes, so the driver sees it at once.
    func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        lock.withLock {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

/// Counts commands still running, so `quit` waits for them (main thread blocks; tasks run elsewhere).
final class PeerTaskCounter: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = 0

    func started() { condition.withLock { running += 1 } }

    func finished() {
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// Blocks until no command is running.
    func waitUntilIdle() {
        condition.withLock {
            while running > 0 { condition.wait() }
        }
    }
}
