@testable import AgentCore
import Foundation
import Testing
import TestSupport
import WCSSession

/// A CLI and a daemon of different control protocol versions refuse each other with a clear
/// message and exit code 5, over the real socket with the real binaries. The other version is
/// claimed through `WCS_AGENT_TEST_CONTROL_PROTOCOL`, which only debug builds honour.
@Suite(.serialized) struct ControlProtocolSkewTests {
    static func environment(claiming version: Int?) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = nil
        env["WCS_AGENT_TEST_CONTROL_PROTOCOL"] = version.map(String.init)
        return env
    }

    @Test func aCLIRefusesADaemonOfAnotherVersion() async throws {
        try await onThread {
            let h = try AgentHarness()
            let older = ControlProtocolVersion.current - 1
            let daemon = try ChildProcess(executable: AgentHarness.binary,
                                          arguments: ["run", "--server", h.emulator.url, "--sip-login", AgentHarness.login,
                                                      "--sip-password-file", h.passwordFile, "--state-dir", h.stateDir,
                                                      "--socket", h.socketPath],
                                          stderrPath: h.logPath, environment: Self.environment(claiming: older))
            defer { daemon.kill() }
            try h.waitFor("control socket") { FileManager.default.fileExists(atPath: h.socketPath) }
            for verb in [["status"], ["calls", "--json"], ["reload"], ["hangup"], ["events"], ["prompt"]] {
                let result = try h.cliWithErrors(verb + ["--socket", h.socketPath], environment: Self.environment(claiming: nil))
                #expect(result.code == ExitCode.protocolMismatch.rawValue, "\(verb): \(result.errors)")
                #expect(result.output.isEmpty)
                #expect(result.errors.contains("wcs-agent \(verb[0]): control protocol mismatch: this wcs-agent daemon"))
                #expect(result.errors.contains("speaks control protocol \(older); the client speaks \(ControlProtocolVersion.current)"))
            }
            // A script that does not say hello still gets its answer (the wire did not change for it).
            let raw = try RawLineClient(path: h.socketPath)
            raw.send("{\"id\":7,\"verb\":\"status\"}\n")
            let answer = try #require(raw.readLine())
            #expect(answer["id"] == 7 && answer["ok"] == true && answer["result"]?["server"]?.stringValue == h.emulator.url)
            #expect(daemon.isRunning)
        }
    }

    @Test func aDaemonRefusesAnOlderCLIAndServesTheMatchingOne() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let older = ControlProtocolVersion.current - 1
            let old = try h.cliWithErrors(["status", "--socket", h.socketPath], environment: Self.environment(claiming: older))
            #expect(old.code == ExitCode.protocolMismatch.rawValue)
            #expect(old.errors.contains("speaks control protocol \(ControlProtocolVersion.current); the client speaks \(older)"), "\(old.errors)")
            let matching = try h.cliWithErrors(["status", "--socket", h.socketPath])
            #expect(matching.code == 0 && matching.output.contains("state:"), "\(matching.errors)")
            // The raw exchange, as docs/control-protocol.md shows it.
            let raw = try RawLineClient(path: h.socketPath)
            raw.send("{\"id\":1,\"verb\":\"hello\",\"args\":{\"protocol\":\(older)}}\n")
            let refused = try #require(raw.readLine())
            #expect(refused["id"] == 1 && refused["ok"] == false && refused["code"] == "protocol_mismatch")
            raw.send("{\"id\":2,\"verb\":\"hello\",\"args\":{\"protocol\":\(ControlProtocolVersion.current)}}\n")
            let accepted = try #require(raw.readLine())
            #expect(accepted == ["id": 2, "ok": true, "result": ["protocol": .number(Double(ControlProtocolVersion.current)),
                                                                   "version": .string(AgentCore.version)]])
        }
    }

    /// A daemon from before `hello` answers it with `unknown_verb`: the CLI says so instead of
    /// guessing (the daemon side is the real control server with a handler that knows no hello).
    @Test func aCLIRefusesADaemonThatPredatesHello() async throws {
        let dir = ScratchDirectory()
        let path = dir.file("control.sock")
        let server = try ControlServer(path: path, group: nil) { request in
            request.verb == "status" ? .ok(["state": "online"]) : .failure(code: "unknown_verb", message: "unknown verb \"\(request.verb)\"")
        }
        defer { server.close() }
        let result = try await onThread { try run(AgentHarness.binary, ["status", "--socket", path]) }
        #expect(result.status == ExitCode.protocolMismatch.rawValue)
        #expect(result.output.contains("the daemon predates control protocol versions"), "\(result.output)")
    }
}
