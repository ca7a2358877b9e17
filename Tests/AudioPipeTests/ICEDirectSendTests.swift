@testable import AudioPipe
import Foundation
import MainLoop
import Testing

/// `ICEAgent.sendMedia`: media goes straight to the selected pair's UDP socket (one `sendto`),
/// libnice's send stays for DTLS, before selection, and for pairs without a plain UDP socket.
@Suite(.serialized) struct ICEDirectSendTests {
    /// Two agents on loopback: every media datagram goes out on the selected socket, from several
    /// threads at once, arrives once and in full; `send` (libnice) is not counted as direct.
    @MainLoopActor @Test func mediaBetweenTwoAgentsGoesStraightToTheSelectedSocket() async throws {
        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        // Before any pair: dropped like libnice's send, and not counted.
        pair.first.sendMedia(ICETestSupport.datagram(tag: 0xEE, index: 0))
        #expect(pair.first.directSends == 0)
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        #expect(await ICETestSupport.wait { pair.first.session.hasDirectRoute && pair.second.session.hasDirectRoute })

        let count = 300
        let first = pair.first
        let senders = (0..<3).map { thread in
            Task.detached {
                for index in stride(from: thread, to: count, by: 3) { first.sendMedia(ICETestSupport.datagram(tag: 1, index: index)) }
            }
        }
        for sender in senders { await sender.value }
        pair.second.sendMedia(ICETestSupport.datagram(tag: 2, index: 0))
        pair.first.send(ICETestSupport.datagram(tag: 3, index: 0))  // libnice's path (DTLS uses it)
        #expect(await ICETestSupport.wait { pair.secondRecorder.datagrams.count >= count + 1 && !pair.firstRecorder.datagrams.isEmpty })
        let expected = (0..<count).map { ICETestSupport.datagram(tag: 1, index: $0) } + [ICETestSupport.datagram(tag: 3, index: 0)]
        #expect(Set(pair.secondRecorder.datagrams) == Set(expected) && pair.secondRecorder.datagrams.count == count + 1)
        #expect(pair.firstRecorder.datagrams == [ICETestSupport.datagram(tag: 2, index: 0)])
        #expect(pair.first.directSends == count)
        #expect(pair.second.directSends == 1)
    }

    /// The route's duplicate descriptor is closed with the agent: no descriptor is left behind.
    @MainLoopActor @Test func closingTheAgentsClosesTheDuplicatedSockets() async throws {
        let before = ICETestSupport.openDescriptorCount()
        for _ in 0..<3 {
            var pair = try await ICEAgentPair.make()
            try await pair.connect()
            #expect(await pair.waitUntilReady())
            #expect(await ICETestSupport.wait { pair.first.session.hasDirectRoute && pair.second.session.hasDirectRoute })
            pair.first.sendMedia(ICETestSupport.datagram(tag: 1, index: 0))
            pair.close()
            #expect(!pair.first.session.hasDirectRoute && !pair.second.session.hasDirectRoute)
        }
        // libnice closes its own sockets in nice_agent_close_async's task: give it the loop a while.
        #expect(await ICETestSupport.wait { ICETestSupport.openDescriptorCount() <= before })
    }

    /// A higher-priority pair nominated later replaces the selected pair: media follows it to the
    /// new remote address at once, and no more reaches the old one.
    @MainLoopActor @Test func aNewSelectedPairMovesDirectSendsToIt() async throws {
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: false))
        let recorder = ICERecorder()
        recorder.attach(to: agent)
        let peer = ICEControllingPeer()
        defer {
            agent.close()
            peer.stop()
        }
        let local = try await agent.gather()
        let agentPort = try #require(local.candidates.first?.port)
        try agent.setRemote(ufrag: peer.ufrag, pwd: peer.password, candidates: peer.candidates)

        // Leg 0 (low priority) answers and nominates: the agent selects it.
        peer.answer(on: 0)
        #expect(await nominate(peer, leg: 0, agent: agent, port: agentPort, local: local))
        #expect(await ICETestSupport.wait { agent.session.directRemote == "127.0.0.1:\(peer.ports[0])" })
        for index in 0..<20 { agent.sendMedia(ICETestSupport.datagram(tag: 1, index: index)) }
        #expect(await ICETestSupport.wait { peer.media(on: 0) >= 20 })
        #expect(agent.directSends == 20)

        // Leg 1 (high priority) answers and nominates: the selected pair changes, and so does the route.
        peer.answer(on: 1)
        #expect(await nominate(peer, leg: 1, agent: agent, port: agentPort, local: local))
        #expect(await ICETestSupport.wait { agent.session.directRemote == "127.0.0.1:\(peer.ports[1])" })
        let onLegZero = peer.media(on: 0)
        for index in 0..<20 { agent.sendMedia(ICETestSupport.datagram(tag: 2, index: index)) }
        #expect(await ICETestSupport.wait { peer.media(on: 1) >= 20 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(peer.media(on: 0) == onLegZero, "media still reached the old remote address")
        #expect(peer.media(on: 1) == 20)
        #expect(agent.directSends == 40)
        #expect(recorder.failureCount == 0)
    }

    /// Nominates from `leg` at each poll (10 ms) until the agent's selected pair is on that leg.
    @MainLoopActor
    private func nominate(_ peer: ICEControllingPeer, leg: Int, agent: ICEAgent, port: Int, local: ICELocalParameters) async -> Bool {
        await ICETestSupport.wait(timeout: 15) {
            if agent.selectedPair?.remote.port == peer.ports[leg] { return true }
            peer.nominate(from: leg, toPort: port, agentUfrag: local.ufrag, agentPassword: local.pwd)
            return false
        }
    }
}

/// A real call (two `CallMedia` over ICE on 127.0.0.1): RTP and RTCP leave on the selected socket.
@Suite struct CallMediaDirectSendTests {
    @Test func aLoopbackCallSendsItsMediaOnTheSelectedSocket() async throws {
        let pair = try await CallPair.connect()
        defer { pair.close() }
        #expect(await pair.waitForAudio())
        try await Task.sleep(for: .milliseconds(1_200))
        for stats in [pair.offerer.statistics(), pair.answerer.statistics()] {
            // Read after the send counters, so a packet sent in between can only add to it.
            let sent = stats.packetsSent + stats.rtcpSent
            #expect(stats.packetsSent >= 50 && stats.rtcpSent >= 1, "\(stats)")
            #expect(stats.packetsSentDirect >= sent && stats.packetsSentDirect <= sent + 2, "\(stats)")
            #expect(stats.packetsReceived >= 50, "\(stats)")
        }
    }
}
