import Foundation
import TestSupport

/// A `Tests/Fixtures/ws/ws_server.py` child process bound to loopback on an ephemeral port.
/// Killed with SIGKILL on `stop()` or deinit (SIGTERM is unreliable under `swift test`).
final class TransportTestServer: @unchecked Sendable {
    let port: Int
    let host: String
    private let process: Process
    private let lock = NSLock()
    private var stopped = false

    enum Mode: String {
        case echo, close, drop, binary, request, reject, deaf
        case neverUpgrade = "never-upgrade"
    }

    struct StartupError: Error, CustomStringConvertible {
        let description: String
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ws/ws_server.py").path

    /// Starts the fixture on a background thread (it blocks until the child reports its port,
    /// which must not tie up the few cooperative threads the other tests need).
    static func start(_ mode: Mode, host: String = "127.0.0.1", certificate: String? = nil, key: String? = nil,
                      extraArguments: [String] = []) async throws -> TransportTestServer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try TransportTestServer(mode, host: host, certificate: certificate, key: key, extraArguments: extraArguments)
                })
            }.start()
        }
    }

    /// Starts the fixture and waits (blocking) for its `{"port": N}` line.
    private init(_ mode: Mode, host: String = "127.0.0.1", certificate: String? = nil, key: String? = nil,
         extraArguments: [String] = []) throws {
        self.host = host
        var arguments = [Self.script, "--mode", mode.rawValue, "--host", host]
        if let certificate, let key { arguments += ["--cert", certificate, "--key", key] }
        arguments += extraArguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process

        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        struct Ready: Decodable { let port: Int }
        guard let ready = try? JSONDecoder().decode(Ready.self, from: line.prefix { $0 != UInt8(ascii: "\n") }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartupError(description: "ws_server.py \(mode.rawValue) did not report a port: \(String(decoding: line, as: UTF8.self))")
        }
        port = ready.port
    }

    /// `scheme://host:port/` with IPv6 hosts in brackets.
    func url(secure: Bool = false, host overrideHost: String? = nil, path: String = "/") -> String {
        let name = overrideHost ?? host
        let bracketed = name.contains(":") ? "[\(name)]" : name
        return "\(secure ? "wss" : "ws")://\(bracketed):\(port)\(path)"
    }

    func stop() {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        guard first else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
func unusedLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length)
            return getsockname(fd, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether this process (or any) has an ESTABLISHED TCP connection to loopback `port`.
func hasEstablishedConnection(toPort port: Int) -> Bool {
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 3 else { continue }
            let remotePort = fields[2].split(separator: ":").last.flatMap { Int($0, radix: 16) }
            if remotePort == port && fields[3] == "01" { return true }
        }
    }
    return false
}
