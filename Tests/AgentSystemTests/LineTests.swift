import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Two lines on one host, as wcs-agent@door.service and wcs-agent@desk.service run them: each
/// daemon gets only systemd's $RUNTIME_DIRECTORY and $STATE_DIRECTORY (ROOT/NAME), and the CLI
/// finds each by `--line NAME` or `$WCS_AGENT_LINE`, and both with `status --all`.
@Suite(.serialized) struct LineTests {
    static let lines = ["door": (login: "1001", password: "door-PW-1"), "desk": (login: "1002", password: "desk-PW-2")]

    /// A line's daemon, started with the environment the template unit gives it.
    final class Line: @unchecked Sendable {
        let name: String
        let stateDir: String
        let daemon: ChildProcess
        init(_ name: String, login: String, password: String, emulator: EmulatorProcess, runRoot: String, scratch: ScratchDirectory) throws {
            self.name = name
            stateDir = scratch.file("state/\(name)")
            let runtimeDir = "\(runRoot)/\(name)"
            try FileManager.default.createDirectory(atPath: runtimeDir, withIntermediateDirectories: true)
            let passwordFile = scratch.write("\(name).sip-password", password + "\n", mode: 0o600)
            var env = ProcessInfo.processInfo.environment
            env["NOTIFY_SOCKET"] = nil
            env["RUNTIME_DIRECTORY"] = runtimeDir
            env["STATE_DIRECTORY"] = stateDir
            daemon = try ChildProcess(executable: AgentHarness.binary, arguments: [
                "run", "--server", emulator.url, "--sip-login", login, "--sip-password-file", passwordFile,
                "--sip-domain", "pbx.test", "--answer", "auto", "--audio-source", "tone:660",
                "--audio-sink", "null", "--media-address", "127.0.0.1", "--log-level", "debug"],
                stderrPath: scratch.file("\(name).log"), environment: env)
        }
        deinit { daemon.kill() }
    }

    /// `wcs-agent ARGS` with `$WCS_AGENT_RUNTIME_ROOT` (and `extra`) set: exit code and stdout.
    static func cli(_ arguments: [String], runRoot: String, extra: [String: String] = [:]) throws -> (code: Int32, output: String) {
        var env = ProcessInfo.processInfo.environment
        env["WCS_AGENT_RUNTIME_ROOT"] = runRoot
        env["WCS_AGENT_SOCKET"] = nil
        env["RUNTIME_DIRECTORY"] = nil
        env["WCS_AGENT_LINE"] = nil
        env.merge(extra) { $1 }
        let child = try ChildProcess(executable: AgentHarness.binary, arguments: arguments, environment: env)
        let output = child.readToEnd(timeout: 20)
        guard let code = child.waitForExit(timeout: 20) else { child.kill(); throw HarnessError("wcs-agent \(arguments) did not exit") }
        return (code, output)
    }

    static func waitFor(_ what: String, timeout: Double = 20, _ condition: () throws -> Bool) throws {
        try requireEventually(what, timeout: timeout, condition)
    }

    @Test func twoLinesEachWithItsOwnTokenAndCalls() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let runRoot = scratch.file("run")
            let emulator = try EmulatorProcess(users: Self.lines.values.reduce(into: [:]) { $0[$1.login] = $1.password }, media: .webrtc)
            let running = try Self.lines.map { name, account in
                try Line(name, login: account.login, password: account.password, emulator: emulator, runRoot: runRoot, scratch: scratch)
            }
            #expect(try Self.cli(["status", "--all"], runRoot: scratch.file("nothing-here")).code == ExitCode.daemonNotRunning.rawValue)
            for line in running {
                try Self.waitFor("line \(line.name) online") {
                    try JSONValue.parse(Self.cli(["status", "--json", "--line", line.name], runRoot: runRoot).output)["state"] == "online"
                }
            }
            // Each line is its own SIP account, session and token.
            let door = try JSONValue.parse(Self.cli(["status", "--json", "--line", "door"], runRoot: runRoot).output)
            let desk = try JSONValue.parse(Self.cli(["status", "--json"], runRoot: runRoot, extra: ["WCS_AGENT_LINE": "desk"]).output)
            #expect(door["sip_login"] == "1001" && desk["sip_login"] == "1002")
            #expect(door["session_id"] != desk["session_id"])
            let tokens = try running.map { try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: $0.stateDir + "/token.json")))["token"] }
            #expect(tokens[0] != nil && tokens[0] != tokens[1])
            // --socket wins over $WCS_AGENT_LINE; a bad line name is a usage error.
            let explicit = try Self.cli(["status", "--json", "--socket", "\(runRoot)/door/control.sock"], runRoot: runRoot, extra: ["WCS_AGENT_LINE": "desk"])
            #expect(try JSONValue.parse(explicit.output)["sip_login"] == "1001")
            #expect(try Self.cli(["status", "--line", "../etc"], runRoot: runRoot).code == ExitCode.usage.rawValue)
            #expect(try Self.cli(["status", "--line", "nosuch"], runRoot: runRoot).code == ExitCode.daemonNotRunning.rawValue)

            // status --all: both lines, in name order.
            let all = try Self.cli(["status", "--all", "--json"], runRoot: runRoot)
            #expect(all.code == 0)
            let listed = try JSONValue.parse(all.output)["lines"]?.arrayValue ?? []
            #expect(listed.map { $0["line"]?.stringValue ?? "?" } == ["desk", "door"])
            #expect(listed.allSatisfy { $0["status"]?["state"] == "online" })
            let human = try Self.cli(["status", "--all"], runRoot: runRoot).output
            #expect(human.contains("line desk") && human.contains("line door") && human.contains("online (registered)"))

            // A call to each account at once: each line answers and records only its own.
            let toDoor = try emulator.control.ring(login: "1001", caller: "2000", source: "tone:440").callId
            let toDesk = try emulator.control.ring(login: "1002", caller: "3000", source: "tone:440").callId
            for id in [toDoor, toDesk] {
                try Self.waitFor("audio on \(id)", timeout: 25) { (try emulator.control.call(id)?.media?.packetsReceived ?? 0) > 50 }
            }
            #expect(try Self.cli(["hangup", "--line", "door"], runRoot: runRoot).code == 0)
            #expect(try Self.cli(["hangup"], runRoot: runRoot, extra: ["WCS_AGENT_LINE": "desk"]).code == 0)
            for (line, id) in zip(running, running.map { $0.name == "door" ? toDoor : toDesk }) {
                try Self.waitFor("record of \(id) on \(line.name)") { try CallRecordStore(directory: line.stateDir).read().count == 1 }
                #expect(try CallRecordStore(directory: line.stateDir).read().map(\.callId) == [id])
            }
        }
    }

    @Test func lineNamesAreChecked() throws {
        for good in ["door", "front-door", "a_1.b", "x@y"] { #expect((try? AgentLine(good)) != nil, "\(good)") }
        for bad in ["", ".", "..", "a/b", "../x", "a b", String(repeating: "x", count: 65)] { #expect(throws: UsageError.self) { try AgentLine(bad) } }
        let line = try AgentLine("door")
        #expect(line.configPath == "/etc/wcs-agent/door.conf" && line.stateDirectory == "/var/lib/wcs-agent/door")
        #expect(line.socketPath(environment: [:]) == "/run/wcs-agent/door/control.sock")
        #expect(line.socketPath(environment: ["WCS_AGENT_RUNTIME_ROOT": "/tmp/r"]) == "/tmp/r/door/control.sock")
    }
}
