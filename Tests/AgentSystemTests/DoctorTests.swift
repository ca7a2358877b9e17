import Foundation
import Testing
import TestSupport
@testable import AgentCore
@testable import AgentTools

/// `wcs-agent doctor` on a good setup (the emulator over ws and wss, a real coturn for STUN and
/// TURN over UDP and TCP) and on broken ones: each broken thing is one FAIL line and exit 1.
@Suite(.serialized) struct DoctorTests {
    /// Runs `wcs-agent doctor ARGS`: exit code and the verdict lines.
    static func doctor(_ arguments: [String]) throws -> (code: Int32, lines: [String]) {
        let child = try ChildProcess(executable: AgentHarness.binary, arguments: ["doctor", "--timeout", "3"] + arguments)
        let output = child.readToEnd(timeout: 60)
        guard let code = child.waitForExit(timeout: 60) else { child.kill(); throw HarnessError("doctor did not exit") }
        return (code, output.split(separator: "\n").map(String.init))
    }

    static func line(_ lines: [String], _ level: String, _ topic: String) -> String? {
        lines.first { $0.hasPrefix(level.padding(toLength: 6, withPad: " ", startingAt: 0) + topic) }
    }

    @Test func aGoodSetupPassesAndEachBrokenThingIsOneFailure() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let emulator = try EmulatorProcess(users: ["1001": "pw-1"])
            let coturn = try CoturnProcess(user: "agent", password: "turn-PW", scratch: scratch)
            let password = scratch.write("sip-password", "pw-1\n", mode: 0o600)
            let turnPassword = scratch.write("turn-password", "turn-PW\n", mode: 0o600)
            let wrongTurnPassword = scratch.write("turn-password-wrong", "nope\n", mode: 0o600)
            let state = scratch.file("state")
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            func config(turn transport: String = "udp", turnPasswordFile: String = turnPassword, server: String = emulator.url) -> String {
                scratch.write("agent-\(UUID().uuidString).conf", """
                [server]
                url = \(server)
                [sip]
                login = 1001
                password_file = \(password)
                [agent]
                state_dir = \(state)
                [audio]
                source = tone:440
                sink = null
                [media]
                stun = 127.0.0.1:\(coturn.port)
                turn = 127.0.0.1:\(coturn.port)
                turn_user = agent
                turn_password_file = \(turnPasswordFile)
                turn_transport = \(transport)
                """)
            }

            // Good: every topic ok (ws:// only warns), exit 0; STUN maps us, TURN allocates over UDP and TCP.
            for transport in ["udp", "tcp"] {
                let good = try Self.doctor(["--config", config(turn: transport)])
                #expect(good.code == 0, "\(good.lines)")
                for topic in ["config", "credentials", "dns", "server", "stun", "turn", "audio", "state"] {
                    #expect(Self.line(good.lines, "ok", topic) != nil, "\(topic): \(good.lines)")
                }
                #expect(Self.line(good.lines, "ok", "stun")?.contains("sees this host as 127.0.0.1:") == true)
                #expect(Self.line(good.lines, "ok", "turn")?.contains("(\(transport)): allocated a relay at 127.0.0.1:") == true)
                #expect(good.lines.last?.hasPrefix("doctor: ") == true && good.lines.last?.contains("0 failures") == true)
            }
            #expect(coturn.log().contains("ALLOCATE") || coturn.log().lowercased().contains("allocation"), "coturn saw no allocation")

            // Broken, one thing at a time.
            let wrongTurn = try Self.doctor(["--config", config(turnPasswordFile: wrongTurnPassword)])
            #expect(wrongTurn.code == 1 && Self.line(wrongTurn.lines, "FAIL", "turn")?.contains("refused the credentials (401)") == true, "\(wrongTurn.lines)")
            let refused = try Self.doctor(["--config", config(server: "ws://127.0.0.1:\(try PushPaths.freePort())")])
            #expect(refused.code == 1 && Self.line(refused.lines, "FAIL", "server")?.contains("connect") == true, "\(refused.lines)")
            let unresolvable = try Self.doctor(["--config", config(server: "wss://no-such-host.invalid:8443")])
            #expect(unresolvable.code == 1 && Self.line(unresolvable.lines, "FAIL", "dns") != nil, "\(unresolvable.lines)")
            let noStun = try Self.doctor(["--config", config(), "--stun", "127.0.0.1:\(try PushPaths.freePort())"])
            #expect(noStun.code == 1 && Self.line(noStun.lines, "FAIL", "stun") != nil, "\(noStun.lines)")
            let missingPassword = try Self.doctor(["--config", config(), "--sip-password-file", scratch.file("nope")])
            #expect(missingPassword.code == 1 && Self.line(missingPassword.lines, "FAIL", "config") != nil, "\(missingPassword.lines)")
            let badAudio = try Self.doctor(["--config", config(), "--audio-source", "file:\(scratch.file("missing.wav"))",
                                            "--audio-sink", "command:no-such-player-xyz"])
            #expect(badAudio.code == 1 && badAudio.lines.filter { $0.hasPrefix("FAIL  audio") }.count == 2, "\(badAudio.lines)")
            chmod(state, 0o777)
            let openState = try Self.doctor(["--config", config()])
            #expect(openState.code == 1 && Self.line(openState.lines, "FAIL", "state")?.contains("writable by everyone") == true, "\(openState.lines)")
            chmod(state, 0o700)
        }
    }

    @Test func tlsIsCheckedAgainstTheCAInUse() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let certs = try TestCertificates.shared()
            let emulator = try EmulatorProcess(users: ["1001": "pw-1"], arguments: ["--tls-cert", certs.serverCertificate, "--tls-key", certs.serverKey])
            let password = scratch.write("sip-password", "pw-1\n", mode: 0o600)
            let base = ["--server", emulator.url, "--sip-login", "1001", "--sip-password-file", password, "--state-dir", scratch.file("state")]
            #expect(emulator.url.hasPrefix("wss://"))
            let untrusted = try Self.doctor(base)
            let failure = Self.line(untrusted.lines, "FAIL", "server") ?? ""
            #expect(untrusted.code == 1 && failure.contains("tls") && failure.contains("CA in use: the system CAs"), "\(untrusted.lines)")
            let trusted = try Self.doctor(base + ["--ca-file", certs.caFile])
            #expect(trusted.code == 0 && Self.line(trusted.lines, "ok", "server")?.contains("TLS verified against CA file \(certs.caFile)") == true, "\(trusted.lines)")
        }
    }

    /// A one-character relative recording directory: its parent is the working directory. The
    /// Foundation-based doctor died with SIGILL here (NSString.deletingLastPathComponent traps on
    /// "r" in corelibs Foundation).
    @Test func aOneCharacterRelativeRecordDirectoryIsChecked() throws {
        let scratch = ScratchDirectory()
        let password = scratch.write("sip-password", "pw\n", mode: 0o600)
        #expect(!FileManager.default.fileExists(atPath: "r"), "the test needs no ./r")
        let result = try Self.doctor(["--server", "wss://127.0.0.1:9/", "--sip-login", "1", "--sip-password-file", password,
                                      "--state-dir", scratch.file("state"), "--audio-sink", "record:r"])
        #expect(result.code == 1, "\(result.lines)")
        #expect(result.lines.contains("ok    audio        sink record:r: will be created"), "\(result.lines)")
    }
}
