import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed (recursively) when the value is released.
public final class ScratchDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        var template = Array("/tmp/wcs-agent-test-XXXXXX".utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String, mode: mode_t = 0o644) -> String {
        let target = file(name)
        _ = FileManager.default.createFile(atPath: target, contents: Data(text.utf8))
        chmod(target, mode)
        return target
    }
}

/// The permission bits of `path`, or nil if it does not exist.
public func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

/// The text content of `path`, or nil.
public func contents(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
}

/// Entries of a directory, sorted.
public func listing(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

/// Runs a program to completion (killed with SIGKILL after `timeout`); returns status and stdout.
public func run(_ executable: String, _ arguments: [String], timeout: Double = 30) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let pid = process.processIdentifier
    let timer = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    timer.cancel()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// A one-shot gate an async handler can wait on until a test opens it.
public final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    public func open() {
        lock.lock()
        isOpen = true
        let pending = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in pending { waiter.resume() }
    }
}
