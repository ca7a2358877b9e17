import Foundation

/// A running WCS emulator (`Tests/Emulator/wcs_emulator.py`) for one test.
///
/// The initializer starts it with `/usr/bin/python3`, waits for its ready line and exposes the ports.
/// ``kill()`` (SIGKILL + reap) ends it; deinit does the same. Its stderr goes to a log file in a private
/// temporary directory (``log()`` reads it; it is removed with the object), and so do recordings.
///
/// ```swift
/// let emulator = try EmulatorProcess(users: ["1001": "secret"])
/// // connect a client to emulator.url ...
/// let ring = try emulator.control.ring(login: "1001", caller: "2000")
/// ```
public final class EmulatorProcess: Sendable {
    /// How the emulator produces SDP and media.
    public enum Media: String, Sendable {
        /// Canned valid SDP, no media sockets: signaling-only tests.
        case fixed
        /// A real WebRTC leg (aiortc): ICE, DTLS-SRTP, Opus audio, recording.
        case webrtc = "aiortc"
    }

    /// The WebSocket port.
    public let port: Int
    /// The control API port.
    public let controlPort: Int
    /// "ws", or "wss" when started with `--tls-cert`.
    public let scheme: String
    /// The emulator's process id.
    public let pid: Int32
    /// The WebSocket URL, e.g. `ws://127.0.0.1:40001`.
    public let url: String
    /// A control API client for this emulator.
    public let control: EmulatorControl

    private let child: ChildProcess
    private let scratch: TemporaryDirectory

    /// Starts the emulator and waits (at most `readyTimeout` seconds) for its ready line.
    /// - Parameters:
    ///   - users: SIP users the fake PBX knows (login → password); passed in a 0600 file, not argv.
    ///   - media: SDP/media engine; `.fixed` unless a test needs real audio.
    ///   - arguments: further emulator flags, e.g. `["--ping-interval", "0.2"]`.
    public init(users: [String: String] = [:], media: Media = .fixed, arguments: [String] = [],
                readyTimeout: Double = 30) throws
    {
        scratch = try TemporaryDirectory(prefix: "wcs-emulator")
        var args = [TestSupport.emulatorScript, "--media", media.rawValue,
                    "--record-dir", scratch.file("recordings")]
        if !users.isEmpty {
            let usersFile = scratch.file("users")
            let lines = users.map { "\($0.key):\($0.value)\n" }.joined()
            guard FileManager.default.createFile(atPath: usersFile, contents: Data(lines.utf8),
                                                 attributes: [.posixPermissions: 0o600])
            else { throw TestSupportError.system("create \(usersFile)", errno) }
            args += ["--users-file", usersFile]
        }
        args += arguments
        let logPath = scratch.file("emulator.log")
        child = try ChildProcess(executable: TestSupport.python, arguments: args, stderrPath: logPath)

        let ready: EmulatorJSON
        do {
            ready = try EmulatorJSON.parse(Data(child.readLine(timeout: readyTimeout).utf8))
        } catch {
            child.kill()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TestSupportError.emulatorNotReady("\(error)\n--- emulator stderr ---\n\(log)")
        }
        guard ready["ready"]?.boolValue == true, let port = ready["port"]?.intValue,
              let controlPort = ready["control_port"]?.intValue, let scheme = ready["scheme"]?.stringValue,
              let pid = ready["pid"]?.intValue
        else {
            child.kill()
            throw TestSupportError.emulatorNotReady("unexpected ready line \(ready)")
        }
        self.port = port
        self.controlPort = controlPort
        self.scheme = scheme
        self.pid = Int32(pid)
        self.url = "\(scheme)://127.0.0.1:\(port)"
        self.control = EmulatorControl(port: controlPort)
    }

    /// Directory where the emulator records received audio as `<callId>.wav` (`.webrtc` media);
    /// removed with this object.
    public var recordDirectory: String { scratch.file("recordings") }

    /// Path of the emulator's stderr log.
    public var logPath: String { scratch.file("emulator.log") }

    /// The emulator's stderr so far (useful in a failure message).
    public func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// True until the emulator exits or is killed.
    public var isRunning: Bool { child.isRunning }

    /// Kills the emulator with SIGKILL and reaps it. Safe to call more than once.
    public func kill() {
        child.kill()
    }

    deinit {
        child.kill()
    }
}
