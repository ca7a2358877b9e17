@testable import AudioPipe
import Foundation
import MainLoop
import Testing

/// Gathering through STUN and TURN, against Tests/Fixtures/ice/stun_turn_server.py.
@Suite(.serialized) struct ICEServerGatheringTests {
    /// The fixture answers like a NAT that maps us to 127.0.0.2 (same port): libnice must add
    /// a server-reflexive candidate whose related address is our host candidate.
    @MainLoopActor @Test func stunServerGivesAServerReflexiveCandidate() async throws {
        let server = try ICEPythonFixture(script: "stun_turn_server.py", arguments: ["--mapped-host", "127.0.0.2"])
        defer { server.stop() }
        let port = try #require(await server.message { $0["port"] != nil }?["port"] as? Int, "\(server.stderr)")
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.stunServer = ICEServerAddress(host: "127.0.0.1", port: UInt16(port))
        configuration.gatherTimeout = 20
        let agent = try ICEAgent(configuration: configuration)
        defer { agent.close() }
        let local = try await agent.gather()
        let host = try #require(local.candidates.first { $0.type == .host })
        let reflexive = try #require(local.candidates.first { $0.type == .serverReflexive }, "\(local.candidates)")
        #expect(reflexive.address == "127.0.0.2" && reflexive.port == host.port)
        #expect(reflexive.relatedAddress == "127.0.0.1" && reflexive.relatedPort == host.port)
        let request = try #require(server.messages.first { $0["method"] as? String == "binding" })
        #expect(request["from"] as? [AnyHashable] == ["127.0.0.1", host.port] as [AnyHashable])
    }

    @MainLoopActor @Test func turnServerGivesARelayCandidateAndThePasswordStaysOutOfTheLog() async throws {
        let password = "turn-Secret-4711"
        let lines = ICELogCapture()
        Log.configure(minimumLevel: .debug, handler: { _, subsystem, message in lines.append("\(subsystem): \(message)") })
        defer { Log.configure(minimumLevel: .info, handler: nil) }
        let server = try ICEPythonFixture(script: "stun_turn_server.py", arguments: ["alice"])
        defer { server.stop() }
        try server.send(line: password)
        let ports = try #require(await server.message { $0["port"] != nil }, "\(server.stderr)")
        let port = try #require(ports["port"] as? Int)
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.turnServers = [TURNServer(host: "localhost", port: UInt16(port), username: "alice", password: password)]
        configuration.gatherTimeout = 20
        let agent = try ICEAgent(configuration: configuration)
        let local = try await agent.gather()
        let relay = try #require(local.candidates.first { $0.type == .relayed }, "\(local.candidates)")
        #expect(relay.address == "127.0.0.1")
        #expect(relay.port == ports["relay_port"] as? Int)
        let allocations = server.messages.filter { $0["method"] as? String == "allocate" }
        #expect(allocations.contains { $0["username"] as? String == "alice" && $0["integrity"] as? String == "ok" })
        #expect(!allocations.contains { $0["integrity"] as? String == "bad" })
        agent.close()
        #expect(!lines.all.isEmpty)
        #expect(!lines.all.contains { $0.contains(password) })
    }
}

/// Collects log lines from any thread.
final class ICELogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
