import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// Collects every datagram sent to a notification socket (standing in for systemd) on a thread.
final class NotifyCollector: @unchecked Sendable {
    let path: String
    private let listener: NotifyListener
    private let lock = NSLock()
    private var received: [String] = []
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) throws {
        self.path = path
        listener = try NotifyListener(address: path)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(listener.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            while !lock.withLock({ stopped }) {
                if let message = listener.receive() { lock.withLock { received.append(message) } }
            }
            finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// Ends the collecting thread (idempotent).
    func stop() {
        let wasStopped = lock.withLock { () -> Bool in
            defer { stopped = true }
            return stopped
        }
        if !wasStopped { finished.wait() }
    }

    /// The messages so far, in order.
    var messages: [String] { lock.withLock { received } }

    /// Waits (at most `timeout` s) for a message at index `from` or later matching `predicate`; returns its index.
    func waitFor(from: Int = 0, timeout: Double = 30, _ predicate: (String) -> Bool) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let all = messages
            if from < all.count, let index = all[from...].firstIndex(where: predicate) { return index }
            usleep(10_000)
        }
        return nil
    }

    /// The `STATUS=` texts so far.
    var statuses: [String] {
        messages.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) }
    }
}

/// The environment for a `wcs-agent run` child under a fake systemd.
func systemdEnvironment(notifySocket: String, watchdogUsec: Int?) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["NOTIFY_SOCKET"] = notifySocket
    env["WATCHDOG_USEC"] = watchdogUsec.map(String.init)
    env["WATCHDOG_PID"] = nil
    env["INVOCATION_ID"] = nil
    env["JOURNAL_STREAM"] = nil
    return env
}

/// A TCP port on 127.0.0.1 that refuses connections while the returned socket stays open
/// (bound, never listening).
func refusingPort() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else {
        close(fd)
        throw HarnessError("cannot bind a TCP socket on 127.0.0.1")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// Runs a tool to completion: exit code, stdout and stderr.
func runTool(_ executable: String, _ arguments: [String], in scratch: TemporaryDirectory,
             timeout: Double = 60) throws -> (code: Int32, output: String, errors: String) {
    let errPath = scratch.file("tool-stderr-\(UUID().uuidString)")
    let child = try ChildProcess(executable: executable, arguments: arguments, stderrPath: errPath)
    let output = child.readToEnd(timeout: timeout)
    guard let code = child.waitForExit(timeout: timeout) else {
        child.kill()
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not exit")
    }
    return (code, output, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// The repository root (this file is Tests/AgentCoreTests/SystemdTestSupport.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
