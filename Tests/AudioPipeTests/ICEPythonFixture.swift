import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A python fixture from Tests/Fixtures/ice that talks JSON lines over stdin/stdout.
/// Run by /usr/bin/python3; SIGKILLed by `stop()` or after 60 s at the latest (pitfall 14).
final class ICEPythonFixture: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    private var errorText = ""

    init(script: String, arguments: [String]) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ice").appendingPathComponent(script).path
        let output = Pipe()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [path] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { kill(pid, SIGKILL) }
        Thread.detachNewThread { [self] in readLines(from: output.fileHandleForReading) }
        Thread.detachNewThread { [self] in
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            lock.withLock { errorText = text }
        }
    }

    private func readLines(from handle: FileHandle) {
        var pending = ""
        while case let chunk = handle.availableData, !chunk.isEmpty {
            pending += String(decoding: chunk, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = String(pending[..<newline])
                pending.removeSubrange(...newline)
                lock.withLock { lines.append(line) }
            }
        }
    }

    /// Every JSON object printed so far.
    var messages: [[String: Any]] {
        lock.withLock { lines }.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// The first JSON object for which `match` holds, waiting up to `timeout` seconds.
    /// Runs in the caller's isolation (the loop for the ICE suites): the result is not Sendable.
    func message(timeout: Double = 20, isolation: isolated (any Actor)? = #isolation,
                 where match: @escaping ([String: Any]) -> Bool) async -> [String: Any]? {
        var found: [String: Any]?
        _ = await ICETestSupport.wait(timeout: timeout) {
            found = messages.first(where: match)
            return found != nil
        }
        return found
    }

    /// The first `{"event": name}` or `{"event": "failed"}` object.
    func event(_ name: String, timeout: Double = 20, isolation: isolated (any Actor)? = #isolation) async -> [String: Any]? {
        await message(timeout: timeout) { $0["event"] as? String == name || $0["event"] as? String == "failed" }
    }

    /// Writes one line to the fixture's stdin.
    func send(line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Writes `object` as one JSON line.
    func send(_ object: [String: Any]) throws {
        try send(line: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// What the fixture wrote to stderr (complete once it exited).
    var stderr: String { lock.withLock { errorText } }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
