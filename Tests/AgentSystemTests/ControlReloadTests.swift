@testable import AgentCore
import Foundation
import Testing
import TestSupport
import WCSSession

/// `wcs-agent reload` over the control socket, with the real daemon against the emulator: it
/// reports what changed and what needed a reconnect, and a file that does not load fails it.
@Suite(.serialized) struct ControlReloadTests {
    @Test func reloadReportsWhatChangedAndWhatReconnected() async throws {
        try await onThread {
            let h = try AgentHarness()
            let configPath = h.scratch.file("agent.conf")
            try SystemdNotifyDaemonTests.config(h).write(toFile: configPath, atomically: true, encoding: .utf8)
            var env = ProcessInfo.processInfo.environment
            env["NOTIFY_SOCKET"] = nil
            let child = try ChildProcess(executable: AgentHarness.binary,
                                         arguments: ["run", "--config", configPath, "--state-dir", h.stateDir, "--socket", h.socketPath],
                                         stderrPath: h.logPath, environment: env)
            defer { child.kill() }
            try h.waitFor("online") { try h.status()["state"] == "online" }
            let session = try #require(try h.status()["session_id"]?.stringValue)
            let sock = ["--socket", h.socketPath]

            // Nothing changed.
            let same = try h.cliWithErrors(["reload", "--json"] + sock)
            #expect(same.code == 0, "\(same.errors)")
            let unchanged = try JSONValue.parse(same.output)
            #expect(unchanged["summary"] == "no changes" && unchanged["reconnected"] == false)

            // Live settings: applied in place, the same connection.
            try SystemdNotifyDaemonTests.config(h, logLevel: "debug", answer: "auto").write(toFile: configPath, atomically: true, encoding: .utf8)
            let live = try h.cliWithErrors(["reload"] + sock)
            #expect(live.code == 0, "\(live.errors)")
            #expect(live.output.trimmingCharacters(in: .whitespacesAndNewlines) == "reloaded: applied: [agent] log_level, [audio] answer")
            #expect(try h.status()["answer_mode"] == "auto")
            #expect(try h.connectionFrames() == 1, "a live reload does not reconnect")

            // A connection setting: reported as a reconnect, and the session resumes by token.
            try SystemdNotifyDaemonTests.config(h, logLevel: "debug", answer: "auto", extra: "connect_timeout = 7")
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let reconnect = try h.cliWithErrors(["reload", "--json"] + sock)
            #expect(reconnect.code == 0, "\(reconnect.errors)")
            let report = try JSONValue.parse(reconnect.output)
            #expect(report["reconnect"] == ["[server] connect_timeout"])
            #expect(report["applied"] == [] && report["relogin"] == [] && report["reconnected"] == true)
            try h.waitFor("second connection") { try h.connectionFrames() == 2 && h.status()["state"] == "online" }
            #expect(try h.status()["session_id"]?.stringValue == session)

            // An account setting: reported as a fresh login; a new server session follows.
            try SystemdNotifyDaemonTests.config(h, logLevel: "debug", answer: "auto", extra: "connect_timeout = 7\napp_key = otherApp")
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let relogin = try h.cliWithErrors(["reload"] + sock)
            #expect(relogin.code == 0, "\(relogin.errors)")
            #expect(relogin.output.contains("reloaded: new login for: [server] app_key (reconnected)"), "\(relogin.output)")
            try h.waitFor("fresh login") {
                let s = try h.status()
                return s["state"] == "online" && s["session_id"]?.stringValue != session
            }

            // A broken file: exit 1 with the reason; the daemon keeps running as it was.
            try (SystemdNotifyDaemonTests.config(h) + "\n[audio]\nanswer = sometimes\n").write(toFile: configPath, atomically: true, encoding: .utf8)
            let broken = try h.cliWithErrors(["reload"] + sock)
            #expect(broken.code == 1)
            #expect(broken.errors.contains("the running configuration stays [reload_failed]"), "\(broken.errors)")
            #expect(broken.output.isEmpty)
            #expect(try h.status()["answer_mode"] == "auto")
            #expect(try h.status()["state"] == "online")
            #expect(child.isRunning)
            #expect(!h.log().contains(AgentHarness.password))
        }
    }
}

extension AgentHarness {
    /// Runs a CLI verb to completion: exit code, stdout and stderr.
    func cliWithErrors(_ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60) throws
        -> (code: Int32, output: String, errors: String)
    {
        let errPath = scratch.file("cli-stderr-\(UUID().uuidString)")
        let child = try ChildProcess(executable: Self.binary, arguments: arguments, stderrPath: errPath,
                                     environment: environment ?? ProcessInfo.processInfo.environment)
        let output = child.readToEnd(timeout: timeout)
        guard let code = child.waitForExit(timeout: timeout) else {
            child.kill()
            throw HarnessError("wcs-agent \(arguments.joined(separator: " ")) did not exit")
        }
        return (code, output, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
