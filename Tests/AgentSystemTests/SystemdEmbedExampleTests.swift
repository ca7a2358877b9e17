import Foundation
import Testing
import TestSupport

/// examples/embed (`wcs-session-example`) logs in, stores the token, and its next run resumes the
/// same server session. Runs the built program against the emulator.
@Suite(.serialized) struct SystemdEmbedExampleTests {
    static var binary: String {
        (AgentHarness.binary as NSString).deletingLastPathComponent + "/wcs-session-example"
    }

    @Test func aSecondRunResumesTheSessionByToken() async throws {
        try await onThread {
            #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build it with `swift build`")
            let h = try AgentHarness()
            let tokenFile = h.scratch.file("example.token")
            let arguments = ["--server", h.emulator.url, "--login", AgentHarness.login, "--password-file", h.passwordFile,
                             "--domain", "pbx.test", "--token-file", tokenFile, "--seconds", "1"]

            let first = try runTool(Self.binary, arguments, in: h.scratch)
            #expect(first.code == 0, "first run failed:\n\(first.output)\n\(first.errors)")
            let session = try #require(try h.emulator.control.sessions().first)
            #expect(first.output.contains("logged in: session \(session.id)"))
            #expect(first.output.contains("state registered"))
            #expect(first.output.contains("socket closed; the server keeps session \(session.id)"))
            #expect(permissions(tokenFile) == 0o600)
            #expect(contents(tokenFile)?.contains(session.token) == true)
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }

            let second = try runTool(Self.binary, arguments, in: h.scratch)
            #expect(second.code == 0, "second run failed:\n\(second.output)\n\(second.errors)")
            #expect(second.output.contains("resuming session \(session.id) by token"))
            #expect(second.output.contains("resumed session \(session.id)"))
            #expect(try h.emulator.control.sessions().map(\.id) == [session.id], "same server session, no new login")
            for text in [first.output, first.errors, second.output, second.errors] {
                #expect(!text.contains(session.token) && !text.contains(AgentHarness.password))
            }
        }
    }

    @Test func printsIncomingCallsAndRefusesAPasswordOnTheCommandLine() async throws {
        try await onThread {
            let h = try AgentHarness()
            let refused = try runTool(Self.binary, ["--server", h.emulator.url, "--password", "x"], in: h.scratch)
            #expect(refused.code == 2)
            #expect(refused.errors.contains("--password is refused"))

            let child = try ChildProcess(executable: Self.binary,
                                         arguments: ["--server", h.emulator.url, "--login", AgentHarness.login,
                                                     "--password-file", h.passwordFile, "--token-file", h.scratch.file("t")],
                                         stderrPath: h.scratch.file("example.err"))
            defer { child.kill() }
            var lines: [String] = []
            while !lines.contains(where: { $0.hasPrefix("logged in: session ") }), let line = try? child.readLine(timeout: 15) {
                lines.append(line)
            }
            #expect(lines.contains { $0.hasPrefix("logged in: session ") }, "\(lines)")
            _ = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", displayName: "Door")
            while !lines.contains(where: { $0.contains("incoming call") }), let line = try? child.readLine(timeout: 15) { lines.append(line) }
            #expect(lines.contains { $0.contains("incoming call") && $0.contains("from 2000 (Door)") }, "\(lines)")
            child.signal(SIGINT)
            #expect(child.waitForExit(timeout: 10) == 0, "\(contents(h.scratch.file("example.err")) ?? "")")
        }
    }
}
