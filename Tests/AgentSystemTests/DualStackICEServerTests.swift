import Foundation
@testable import AudioPipe
import MainLoop
import Testing
import TestSupport
@testable import AgentCore
@testable import AgentTools

/// A TURN/STUN name whose first address is one the server does not listen on: a real coturn on
/// 127.0.0.1 only, named `turn.dual.test`, which the injected lookup resolves like a stock Debian
/// resolves `localhost` (`::1` first, then `127.0.0.1`). The call's ICE agent must still get its
/// relay candidate from coturn, and `doctor` must pass on the same addresses.
@Suite(.serialized) struct DualStackICEServerTests {
    static let name = "turn.dual.test"
    static let dual: ICEServerResolver.Lookup = { $0 == name ? ["::1", "127.0.0.1"] : nil }
    static let firstOnly: ICEServerResolver.Lookup = { $0 == name ? ["::1"] : nil }

    /// Gathers with `turn.dual.test:PORT` as the TURN server and `local` as host addresses.
    @MainLoopActor static func gather(port: Int, local: [String], lookup: @escaping ICEServerResolver.Lookup) async throws -> [ICECandidateLine] {
        var configuration = ICEConfiguration(controlling: true, localAddresses: local)
        configuration.turnServers = [TURNServer(host: name, port: UInt16(port), username: "agent", password: "turn-PW-5120")]
        configuration.gatherTimeout = 4
        let agent = try ICEAgent(configuration: configuration)
        defer { agent.close() }
        return try await agent.gather(lookup: lookup).candidates
    }

    @Test func aRelayComesFromTheIPv4AddressAlthoughTheNamesFirstAddressIsIPv6() async throws {
        let scratch = ScratchDirectory()
        let coturn = try CoturnProcess(user: "agent", password: "turn-PW-5120", scratch: scratch)
        for local in [["127.0.0.1"], ["127.0.0.1", "::1"]] {
            let candidates = try await Self.gather(port: coturn.port, local: local, lookup: Self.dual)
            let relay = try #require(candidates.first { $0.type == .relayed }, "local \(local): \(candidates)")
            #expect(relay.address == "127.0.0.1")
        }
        #expect(coturn.log().contains("user <agent>: incoming packet ALLOCATE processed, success"), "\(coturn.log().suffix(2000))")
        // What the first address alone gave: no relay (the defect this suite guards against).
        let firstOnly = try await Self.gather(port: coturn.port, local: ["127.0.0.1"], lookup: Self.firstOnly)
        #expect(!firstOnly.contains { $0.type == .relayed }, "\(firstOnly)")
    }

    @Test func doctorProbesTheAddressesTheAgentUses() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let coturn = try CoturnProcess(user: "agent", password: "turn-PW-5120", scratch: scratch)
            let secret = scratch.write("turn-password", "turn-PW-5120\n", mode: 0o600)
            let path = scratch.write("agent.conf", """
                [server]
                url = ws://127.0.0.1:1
                [media]
                addresses = 127.0.0.1
                stun = \(Self.name):\(coturn.port)
                turn = \(Self.name):\(coturn.port)
                turn_user = agent
                turn_password_file = \(secret)

                """)
            let config = try ConfigLoader.load(arguments: ["--config", path], environment: [:])
            let turn = try #require(DoctorNetworkChecks.turn(config, timeout: 3, lookup: Self.dual))
            #expect(turn.line.contains("at 127.0.0.1: allocated a relay at 127.0.0.1:"), "\(turn)")
            #expect(turn.line.contains("; at ::1: "), "\(turn)")
            let stun = DoctorNetworkChecks.stun(config, timeout: 3, lookup: Self.dual)
            #expect(stun.line.contains("at 127.0.0.1 answers; it sees this host as 127.0.0.1:"), "\(stun)")
            let broken = try #require(DoctorNetworkChecks.turn(config, timeout: 3, lookup: Self.firstOnly))
            #expect(broken.level == .failure && broken.message.contains("(udp): at ::1: "), "\(broken)")
        }
    }
}
