import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// Issue 8: a configuration that cannot work makes the real `wcs-agent run` exit at once with
/// status 78 (a missing CA file used to be retried for good as a connection error), and the units
/// tell systemd not to restart on it.
@Suite struct ConfigErrorExitTests {
    /// Runs `wcs-agent run` with `arguments` (plus a server and a state dir): exit status and stderr.
    private func run(_ arguments: [String], in scratch: TemporaryDirectory) throws -> (code: Int32?, errors: String) {
        let err = scratch.file("err-\(UUID().uuidString)")
        let child = try ChildProcess(executable: AgentHarness.binary,
                                     arguments: ["run", "--server", "ws://127.0.0.1:1", "--state-dir", scratch.file("state"),
                                                 "--socket", scratch.file("control.sock")] + arguments, stderrPath: err)
        let code = child.waitForExit(timeout: 10)
        if code == nil { child.kill() }
        return (code, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    @Test func configErrorsExitWith78AtStart() async throws {
        try await onThread {
            let scratch = try TemporaryDirectory()
            let password = scratch.file("pw")
            _ = FileManager.default.createFile(atPath: password, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600])
            let notPEM = scratch.file("not-a-ca.pem")
            _ = FileManager.default.createFile(atPath: notPEM, contents: Data("hello\n".utf8))
            let badConfig = scratch.file("bad.conf")
            _ = FileManager.default.createFile(atPath: badConfig, contents: Data("[agent]\nreceive_probes = many\n".utf8))
            let sip = ["--sip-login", "1001", "--sip-domain", "pbx.test"]
            let cases: [(String, [String], String)] = [
                ("missing CA file", ["--ca-file", scratch.file("no-such-ca.pem")], "CA file"),
                ("CA file without a certificate", ["--ca-file", notPEM], "no PEM certificate"),
                ("missing password file", sip + ["--sip-password-file", scratch.file("no-such-pw")], "no-such-pw"),
                ("unreadable password file (a directory)", sip + ["--sip-password-file", scratch.path], scratch.path),
                ("bad config value", ["--config", badConfig], "receive_probes"),
                ("missing config file", ["--config", scratch.file("no-such.conf")], "no-such.conf"),
            ]
            for (name, arguments, mention) in cases {
                let result = try run(arguments, in: scratch)
                #expect(result.code == ExitCode.configError.rawValue, "\(name): exit \(String(describing: result.code)): \(result.errors)")
                #expect(result.errors.contains(mention), "\(name): \(result.errors)")
                #expect(!result.errors.contains("secret"), "\(name): the password leaked")
            }
        }
    }

    @Test func theUnitsDoNotRestartOnConfigErrors() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        for unit in ["wcs-agent.service", "wcs-agent@.service"] {
            let text = try String(contentsOf: root.appendingPathComponent("examples/systemd/\(unit)"), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains("RestartPreventExitStatus=2 78"), "\(unit)")
            #expect(lines.contains("Restart=on-failure"), "\(unit)")
        }
        #expect(ExitCode.configError.rawValue == 78)
    }
}
