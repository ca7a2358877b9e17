import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore
@testable import AgentTools

/// libnice is loaded at the first call, not at start: an idle daemon maps neither libnice nor the
/// libraries only it pulls in; a call loads it; a daemon that cannot load it fails the call with
/// the loader's reason (log and call record), stays online, and `doctor` says why.
@Suite(.serialized) struct LazyLibniceTests {
    typealias Kit = CallControlTests

    /// Libraries (file names) that only libnice brings in; none may be mapped while idle.
    static let onlyLibniceBringsIn = ["libnice.so", "libgupnp", "libsoup", "libgssdp"]

    /// The file names of the ELF objects mapped into `pid`.
    static func mappedFiles(_ pid: pid_t) throws -> Set<String> {
        try MappedFiles.names(pid: "\(pid)")
    }

    static func daemonPid(_ h: AgentHarness) throws -> pid_t {
        let pid = try #require(h.daemon?.pid)
        // The front execs the full binary in the same process.
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(exe.hasSuffix("/wcs-agentd"), "\(exe)")
        return pid
    }

    /// Rings the agent with a tone and waits until media flows both ways; returns the call id.
    static func callWithMedia(_ h: AgentHarness, caller: String) throws -> String {
        let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: caller, source: "tone:440")
        try h.waitFor("media both ways", timeout: 30) {
            let media = try h.emulator.control.call(ring.callId)?.media
            return (media?.packetsReceived ?? 0) > 50 && (media?.packetsSent ?? 0) > 50
        }
        return ring.callId
    }

    @Test func anIdleDaemonMapsNoLibniceAndACallLoadsIt() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Kit.audioFlags(h))
            let pid = try Self.daemonPid(h)
            Thread.sleep(forTimeInterval: 0.5)
            let idle = try Self.mappedFiles(pid)
            #expect(idle.contains { $0.hasPrefix("libglib-2.0.so") }, "the main loop's GLib: \(idle.sorted())")
            for name in Self.onlyLibniceBringsIn {
                #expect(!idle.contains { $0.hasPrefix(name) }, "\(name) mapped while idle: \(idle.sorted())")
            }

            let callId = try Self.callWithMedia(h, caller: "2000")
            let inCall = try Self.mappedFiles(pid)
            #expect(inCall.contains { $0.hasPrefix("libnice.so.10") }, "\(inCall.sorted())")
            #expect(h.log().contains("libnice loaded from /"), "\(h.log().suffix(2000))")
            try h.emulator.control.hangup(callId: callId)
            #expect(try Kit.waitForRecord(h, callId).endResult == .completed)
        }
    }

    @Test func withoutLibniceACallFailsClearlyAndTheDaemonStaysOnline() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            let (brokenDir, environment) = try Self.brokenLibrary("libnice.so.10", in: h)
            try h.start(extra: Kit.audioFlags(h), environment: environment)
            let pid = try Self.daemonPid(h)

            for caller in ["2000", "2001"] {
                let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: caller, source: "tone:440")
                let record = try Kit.waitForRecord(h, ring.callId, timeout: 30)
                #expect(record.endResult == .failed)
                let info = record.info ?? ""
                #expect(info.contains("libnice unavailable: cannot load libnice.so.10: \(brokenDir)/libnice.so.10"), "\(info)")
                #expect(try h.status()["state"]?.stringValue == "online")
                #expect(h.daemon?.isRunning == true)
            }
            #expect(h.log().contains("libnice cannot be loaded, calls will fail: cannot load libnice.so.10"), "\(h.log().suffix(3000))")
            #expect(!(try Self.mappedFiles(pid)).contains { $0.hasPrefix("libnice") })

            // doctor, in its own process, with the same search path: one FAIL line saying why.
            let base = ["doctor", "--timeout", "3", "--server", h.emulator.url, "--sip-login", AgentHarness.login,
                        "--sip-password-file", h.passwordFile, "--state-dir", h.stateDir]
            let broken = try Self.run(base, environment: environment)
            #expect(broken.code == 1)
            let failure = DoctorTests.line(broken.lines, "FAIL", "libnice")
            #expect(failure?.contains("cannot load libnice.so.10: \(brokenDir)/libnice.so.10") == true, "\(broken.lines)")
            #expect(failure?.contains("install libnice10") == true)
            let good = try Self.run(base, environment: [:])
            let ok = DoctorTests.line(good.lines, "ok", "libnice")
            #expect(ok?.contains("/libnice.so.10") == true && ok?.contains(" loads in ") == true, "\(good.lines)")
        }
    }

    /// A directory holding a broken `soname` (not an ELF file, as a damaged install would leave)
    /// and the environment that puts it first in the loader's search path.
    static func brokenLibrary(_ soname: String, in h: AgentHarness) throws -> (directory: String, environment: [String: String]) {
        let directory = h.scratch.file("broken-libs")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "not a library\n".write(toFile: directory + "/" + soname, atomically: true, encoding: .utf8)
        let inherited = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? ""
        return (directory, ["LD_LIBRARY_PATH": directory + inherited])
    }

    static func run(_ arguments: [String], environment: [String: String]) throws -> (code: Int32, lines: [String]) {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child = try ChildProcess(executable: AgentHarness.binary, arguments: arguments, environment: env)
        let output = child.readToEnd(timeout: 60)
        guard let code = child.waitForExit(timeout: 60) else { child.kill(); throw HarnessError("doctor did not exit") }
        return (code, output.split(separator: "\n").map(String.init))
    }
}
