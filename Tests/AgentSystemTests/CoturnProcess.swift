import Foundation
import TestSupport

/// A real coturn (Debian's `turnserver`) for the TURN and STUN tests, on loopback unless told
/// another local address (the NAT tests' public side): UDP and TCP on one free port, long-term
/// credentials from a credentials file (coturn's own config file holding
/// `user=` lines), relaying to loopback peers, logging to a file the tests read.
///
/// Used from a test's own thread; the process is killed when the value is released.
final class CoturnProcess: @unchecked Sendable {
    static let executable = "/usr/bin/turnserver"
    static let realm = "wcs.test"

    let port: Int
    let logPath: String
    let user: String
    private let process: ChildProcess

    /// The address it listens and relays on.
    let address: String

    init(user: String, password: String, scratch: ScratchDirectory, address: String = "127.0.0.1") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw HarnessError("\(Self.executable) is missing: run `make deps` (installs coturn)")
        }
        self.user = user
        self.address = address
        let probe = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)  // a free UDP port; coturn takes TCP on it too
        var bound = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr(address)), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) } }
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) } }
        port = Int(UInt16(bigEndian: bound.sin_port))
        close(probe)
        logPath = scratch.file("turnserver.log")
        let credentials = scratch.write("turnserver.conf", "# long-term credentials\nuser=\(user):\(password)\nrealm=\(Self.realm)\n", mode: 0o600)
        process = try ChildProcess(executable: Self.executable, arguments: [
            "-c", credentials, "--lt-cred-mech", "--listening-ip=\(address)", "--listening-port=\(port)",
            "--relay-ip=\(address)", "--min-port=50000", "--max-port=59999", "--allow-loopback-peers",
            "--no-tls", "--no-dtls", "--no-cli", "--no-multicast-peers", "--db=\(scratch.file("turndb"))",
            "--pidfile=\(scratch.file("turnserver.pid"))", "--log-file=\(logPath)", "--simple-log", "--verbose"],
            stderrPath: scratch.file("turnserver.stderr"))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !log().contains("Total General servers") { usleep(50_000) }
        guard process.isRunning else { throw HarnessError("turnserver exited:\n\(log())") }
    }

    deinit { process.kill() }

    /// coturn's log so far.
    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
