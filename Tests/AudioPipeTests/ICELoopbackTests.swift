@testable import AudioPipe
import Foundation
import MainLoop
import Testing

/// Two in-process libnice agents on 127.0.0.1.
@Suite struct ICELoopbackTests {
    @MainLoopActor @Test func twoAgentsReachReadyAndExchangeDatagrams() async throws {
        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        // Sent before any pair exists: must be dropped, not queued.
        for index in 0..<5 { pair.first.send(ICETestSupport.datagram(tag: 0xEE, index: index)) }
        let clock = ContinuousClock()
        let started = clock.now
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        let ready = clock.now - started
        print("ICE loopback: gather \(pair.gatherSeconds.map { String(format: "%.1f ms", $0 * 1000) }), "
              + "setRemote→both ready \(String(format: "%.1f ms", ICETestSupport.seconds(ready) * 1000 - pair.gatherSeconds.reduce(0, +) * 1000))")

        let count = 200
        let toSecond = (0..<count).map { ICETestSupport.datagram(tag: 1, index: $0) }
        let toFirst = (0..<count).map { ICETestSupport.datagram(tag: 2, index: $0, length: 60 + $0) }
        for datagram in toSecond { pair.first.send(datagram) }
        for datagram in toFirst { pair.second.send(datagram) }
        #expect(await ICETestSupport.wait {
            pair.secondRecorder.datagrams.count >= count && pair.firstRecorder.datagrams.count >= count
        })
        #expect(pair.secondRecorder.datagrams.sorted { $0.lexicographicallyPrecedes($1) } == toSecond)
        #expect(Set(pair.firstRecorder.datagrams) == Set(toFirst))
        #expect(pair.firstRecorder.datagrams.count == count)

        for agent in [pair.first, pair.second] {
            let selected = try #require(agent.selectedPair)
            #expect(selected.local.address == "127.0.0.1" && selected.remote.address == "127.0.0.1")
            #expect(selected.local.type == .host && selected.remote.type == .host)
            #expect(selected.local.transport == "udp")
        }
        #expect(pair.first.selectedPair?.local.port == pair.second.selectedPair?.remote.port)
        #expect(pair.firstRecorder.states.first == .checking && pair.firstRecorder.states.last == .ready)
    }

    /// The WCS case: the side without remote candidates learns its peer from the peer's checks.
    @MainLoopActor @Test(arguments: [true, false])
    func sideWithoutRemoteCandidatesLearnsPeerReflexive(blindSideControlling: Bool) async throws {
        var pair = try await ICEAgentPair.make(firstControlling: blindSideControlling)
        defer { pair.close() }
        try await pair.connect(firstGetsCandidates: false, secondGetsCandidates: true)
        #expect(await pair.waitUntilReady())
        let blind = try #require(pair.first.selectedPair)
        #expect(blind.remote.type == .peerReflexive)
        #expect(blind.remote.address == "127.0.0.1")
        #expect(pair.second.selectedPair?.remote.type == .host)

        pair.first.send(ICETestSupport.datagram(tag: 3, index: 0))
        pair.second.send(ICETestSupport.datagram(tag: 4, index: 0))
        #expect(await ICETestSupport.wait {
            pair.firstRecorder.datagrams == [ICETestSupport.datagram(tag: 4, index: 0)]
                && pair.secondRecorder.datagrams == [ICETestSupport.datagram(tag: 3, index: 0)]
        })
    }

    @MainLoopActor @Test func unreachableCandidateFailsOnceThenANewPairStillWorks() async throws {
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: true, connectTimeout: 2))
        let recorder = ICERecorder()
        recorder.attach(to: agent)
        _ = try await agent.gather()
        try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                            candidates: [ICETestSupport.loopbackCandidate(port: ICETestSupport.closedUDPPort())])
        #expect(await ICETestSupport.wait(timeout: 15) { recorder.failureCount > 0 })
        #expect(recorder.states.last == .failed("Failed by ICE error"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(recorder.failureCount == 1)
        #expect(!recorder.isReady)
        agent.close()
        agent.close()
        #expect(recorder.states.last == .closed)
        #expect(recorder.failureCount == 1)

        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        try await pair.connect()
        #expect(await pair.waitUntilReady())
    }

    @MainLoopActor @Test func threePairsAtOnceDoNotInterfere() async throws {
        var pairs: [ICEAgentPair] = []
        for _ in 0..<3 { pairs.append(try await ICEAgentPair.make()) }
        defer { pairs.forEach { $0.close() } }
        for index in pairs.indices { try await pairs[index].connect() }
        for pair in pairs { #expect(await pair.waitUntilReady()) }
        for (index, pair) in pairs.enumerated() {
            for n in 0..<20 { pair.first.send(ICETestSupport.datagram(tag: UInt8(10 + index), index: n)) }
        }
        for (index, pair) in pairs.enumerated() {
            #expect(await ICETestSupport.wait { pair.secondRecorder.datagrams.count >= 20 })
            #expect(pair.secondRecorder.datagrams.allSatisfy { $0[1] == UInt8(10 + index) })
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(pairs.map { $0.secondRecorder.datagrams.count } == [20, 20, 20])
    }

    @MainLoopActor @Test func sendsFromManyThreadsArriveOnce() async throws {
        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        let sender = pair.first
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            sender.send(ICETestSupport.datagram(tag: 5, index: index))
        }
        #expect(await ICETestSupport.wait { pair.secondRecorder.datagrams.count >= 100 })
        #expect(Set(pair.secondRecorder.datagrams.map { Int($0[2]) << 8 | Int($0[3]) }) == Set(0..<100))
    }
}
