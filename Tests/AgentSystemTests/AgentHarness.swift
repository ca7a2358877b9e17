import Foundation
import Testing
import TestSupport
import WCSSession

/// Runs the real `wcs-agent` binary against a WCS emulator, each in a private temporary directory.
final class AgentHarness: @unchecked Sendable {
    static let login = "1001"
    static let password = "agent-PW-7731"

    let emulator: EmulatorProcess
    let scratch: TemporaryDirectory
    let socketPath: String
    let stateDir: String
    let passwordFile: String
    let logPath: String
    /// The `wcs-agent` executable this harness runs (default: the one built next to the tests).
    let agentBinary: String
    private(set) var daemon: ChildProcess?

    /// The `wcs-agent` executable built next to the test bundle.
    static var binary: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("wcs-agent").path) {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("wcs-agent").path
    }

    /// The full binary (`wcs-agentd`) built next to the lean front `binary`, which execs it.
    static var fullBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("wcs-agentd").path
    }

    /// - Parameter emulatorArguments: receives the harness (for paths) and returns extra emulator flags.
    init(password: String = AgentHarness.password, media: EmulatorProcess.Media = .fixed, binary: String = AgentHarness.binary,
         emulatorArguments: (TemporaryDirectory) -> [String] = { _ in [] }) throws
    {
        agentBinary = binary
        scratch = try TemporaryDirectory(prefix: "wcs-agent-test")
        socketPath = scratch.file("control.sock")
        stateDir = scratch.file("state")
        passwordFile = scratch.file("sip-password")
        logPath = scratch.file("agent.log")
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data((password + "\n").utf8),
                                       attributes: [.posixPermissions: 0o600])
        emulator = try EmulatorProcess(users: [Self.login: Self.password], media: media,
                                       arguments: emulatorArguments(scratch))
    }

    deinit {
        daemon?.kill()
    }

    /// Starts `wcs-agent run` against the emulator and waits until the control socket answers.
    /// The agent is a lone agent: `--reconnect-spread 0` unless `extra` sets it (the last flag wins).
    /// - Parameter launcher: a program and its arguments that run the agent (e.g. `strace … -o F`);
    ///   the agent's path and arguments follow them.
    /// - Parameter environment: variables added to (or, with nil, removed from) the agent's environment.
    func start(server: String? = nil, extra: [String] = [], waitOnline: Bool = true, launcher: [String] = [],
               environment: [String: String?] = [:]) throws {
        let args = ["run", "--server", server ?? emulator.url, "--sip-login", Self.login,
                    "--sip-password-file", passwordFile, "--sip-domain", "pbx.test",
                    "--state-dir", stateDir, "--socket", socketPath, "--log-level", "debug",
                    "--reconnect-spread", "0"] + extra
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = nil
        for (key, value) in environment { env[key] = value }
        let command = launcher.isEmpty ? [agentBinary] + args : launcher + [agentBinary] + args
        daemon = try ChildProcess(executable: command[0], arguments: Array(command.dropFirst()), stderrPath: logPath, environment: env)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socketPath), (try? status()) != nil { break }
            guard daemon?.isRunning == true else { throw HarnessError("agent exited:\n\(log())") }
            usleep(20_000)
        }
        if waitOnline { try waitFor("online state") { try self.status()["state"]?.stringValue == "online" } }
    }

    /// Runs a CLI verb to completion: exit code and stdout.
    @discardableResult
    func cli(_ arguments: [String], timeout: Double = 30) throws -> (code: Int32, output: String) {
        let child = try ChildProcess(executable: agentBinary, arguments: arguments, stderrPath: scratch.file("cli-stderr-\(UUID().uuidString)"))
        let output = child.readToEnd(timeout: timeout)
        guard let code = child.waitForExit(timeout: timeout) else {
            child.kill()
            throw HarnessError("wcs-agent \(arguments.joined(separator: " ")) did not exit")
        }
        return (code, output)
    }

    /// `status --json` as JSON.
    func status() throws -> JSONValue {
        let result = try cli(["status", "--json", "--socket", socketPath], timeout: 10)
        guard result.code == 0 else { throw HarnessError("status exit \(result.code): \(result.output)") }
        return try JSONValue.parse(result.output)
    }

    /// Polls `condition` (at most `timeout` seconds).
    func waitFor(_ what: String, timeout: Double = 15, _ condition: () throws -> Bool) throws {
        try requireEventually(what, timeout: timeout, context: { "agent log:\n\(log().suffix(3000))" }, condition)
    }

    /// The agent's stderr so far.
    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The token file's contents.
    func storedToken() throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: stateDir + "/token.json")))
    }

    /// Client `connection` frames the emulator received so far.
    func connectionFrames() throws -> Int {
        try emulator.control.frames(message: "connection", direction: "in").count
    }

    /// Stops the daemon with `signal` and returns its exit code.
    func stop(signal: Int32 = SIGTERM) -> Int32? {
        daemon?.signal(signal)
        return daemon?.waitForExit(timeout: 10)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
