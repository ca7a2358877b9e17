import Foundation
import Testing
import TestSupport
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// Helpers shared by the push tests (real daemon, real emulator, real tools).
extension AgentHarness {
    /// The raw push the emulator sent for `callId` (`GET /pushes`), with an extra field the agent
    /// must ignore.
    func pushPayload(for callId: String) throws -> String {
        var push: EmulatorPush?
        try waitFor("push for \(callId)") {
            push = try emulator.control.pushes().first { $0.id == callId }
            return push != nil
        }
        let p = try #require(push)
        return #"{"id":"\#(p.id)","uuid":"\#(p.uuid)","handle":"\#(p.handle)","sent_by":"test"}"#
    }

    /// Puts the agent to sleep and waits until the emulator sees the socket gone.
    func sleepAgent() throws {
        let slept = try cli(["sleep", "--socket", socketPath])
        #expect(slept.code == 0, "sleep: \(slept.output)")
        try waitFor("detached session") { try emulator.control.sessions().first?.connected == false }
    }

    /// Runs `wcs-agent reconnect --payload FILE --json` with `payload` written to a file.
    func reconnect(payload: String) throws -> (code: Int32, reply: JSONValue?) {
        let file = scratch.file("push-\(UUID().uuidString).json")
        try payload.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try cli(["reconnect", "--payload", file, "--json", "--socket", socketPath])
        return (result.code, try? JSONValue.parse(result.output))
    }

    /// The ids of the calls `status` lists.
    func statusCallIds() throws -> [String] {
        try status()["calls"]?.arrayValue?.compactMap { $0["call_id"]?.stringValue } ?? []
    }

    /// The call journal's records as JSON objects.
    func callRecords() -> [JSONValue] {
        let text = (try? String(contentsOfFile: stateDir + "/calls.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    /// Points the emulator's push delivery at a shell command (push JSON on its stdin).
    func setPushCommand(_ command: String) throws {
        try emulator.control.post("/config", ["push_command": .string(command)])
    }
}

/// `wcs-agent events --json` as a child process: collects the daemon's events.
final class PushEventTap: @unchecked Sendable {
    private let child: ChildProcess
    private(set) var events: [JSONValue] = []

    init(_ h: AgentHarness) throws {
        child = try ChildProcess(executable: AgentHarness.binary, arguments: ["events", "--json", "--socket", h.socketPath],
                                 stderrPath: h.scratch.file("events-stderr"))
        // Subscribed once an event gets through: a malformed frame makes the (online) agent publish a warning.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            try h.emulator.control.post("/malformed", ["login": .string(AgentHarness.login), "frame": "not json"])
            if let line = try? child.readLine(timeout: 0.5), let event = try? JSONValue.parse(line) {
                events.append(event)
                if event["type"] == "warning" { return }
            }
        }
        throw HarnessError("the events subscription never delivered an event")
    }

    deinit { child.kill() }

    /// Reads events until one satisfies `match` (at most `timeout` seconds); returns it.
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 20, _ match: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let line = try? child.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)),
                  let event = try? JSONValue.parse(line) else { continue }
            events.append(event)
            if match(event) { return event }
        }
        throw HarnessError("no \(what) event; got \(events.map { $0["type"]?.stringValue ?? "?" })")
    }

    /// Reads whatever arrives within `seconds` (a quiet window for "nothing else happened" checks).
    func drain(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = try? child.readLine(timeout: max(0.05, deadline.timeIntervalSinceNow)),
               let event = try? JSONValue.parse(line) { events.append(event) }
        }
    }
}

/// A shell pipeline from examples/push run in its own session, so the whole group can be killed.
final class PushExampleProcess: @unchecked Sendable {
    let child: ChildProcess

    /// Runs `examples/push/<script>` under `setsid` with `environment` added to ours.
    init(script: String, environment: [String: String], stderrPath: String) throws {
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        child = try ChildProcess(executable: "/usr/bin/setsid", arguments: [PushPaths.example(script)],
                                 stderrPath: stderrPath, environment: env)
    }

    deinit {
        Glibc.kill(-child.pid, SIGKILL)
        child.kill()
    }

    /// The next line the pipeline printed (wcs-agent reconnect's human answer).
    func readLine(timeout: Double = 20) throws -> String { try child.readLine(timeout: timeout) }
}

/// Paths of the repository files the push tests use.
enum PushPaths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    static func example(_ name: String) -> String { repository + "/examples/push/" + name }
    static func fixture(_ name: String) -> String { repository + "/Tests/Fixtures/push/" + name }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw HarnessError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
