@testable import AudioPipe
import Foundation
import MainLoop
import Testing

/// Closing, repeated creation, misuse and configuration errors.
@Suite struct ICELifecycleTests {
    @MainLoopActor @Test func closeDuringCheckingStopsEveryCallback() async throws {
        let silent = ICESilentUDPSocket() // answers nothing, so the checks keep going
        defer { silent.close() }
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: false))
        let recorder = ICERecorder()
        recorder.attach(to: agent)
        _ = try await agent.gather()
        try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                            candidates: [ICETestSupport.loopbackCandidate(port: silent.port)])
        #expect(recorder.states == [.checking])
        try await Task.sleep(for: .milliseconds(100))
        agent.close()
        #expect(recorder.states == [.checking, .closed])
        #expect(agent.onStateChange == nil && agent.onReceive == nil)
        agent.send([0x80, 1, 2, 3])
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.lateCallbacks == 0)
        #expect(recorder.states == [.checking, .closed])
        await #expect(throws: ICEError.closed) { _ = try await agent.gather() }
        #expect(throws: ICEError.closed) { try agent.setRemote(ufrag: "a", pwd: "b", candidates: []) }
    }

    /// An agent whose STUN server (`host`, a silent socket) never answers, so gathering lasts
    /// until `gatherTimeout`.
    @MainLoopActor
    private func agentWithSilentSTUN(_ silentSTUN: ICESilentUDPSocket, host: String, gatherTimeout: Double) throws -> ICEAgent {
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.stunServer = ICEServerAddress(host: host, port: UInt16(silentSTUN.port))
        configuration.gatherTimeout = gatherTimeout
        return try ICEAgent(configuration: configuration)
    }

    @MainLoopActor @Test func closeDuringGatheringEndsTheGather() async throws {
        let silentSTUN = ICESilentUDPSocket()
        defer { silentSTUN.close() }
        let agent = try agentWithSilentSTUN(silentSTUN, host: "127.0.0.1", gatherTimeout: 30)
        let gathering = Task { try await agent.gather() }
        try await Task.sleep(for: .milliseconds(200))
        agent.close()
        await #expect(throws: ICEError.closed) { _ = try await gathering.value }
    }

    @MainLoopActor @Test func gatherTimeoutReturnsHostCandidatesWhenSTUNIsSilent() async throws {
        let silentSTUN = ICESilentUDPSocket()
        defer { silentSTUN.close() }
        let agent = try agentWithSilentSTUN(silentSTUN, host: "localhost", gatherTimeout: 0.5)
        defer { agent.close() }
        let local = try await agent.gather()
        #expect(local.candidates.map(\.address) == ["127.0.0.1"])
        #expect(local.candidates.first?.type == .host)
        #expect(!local.ufrag.isEmpty && local.pwd.count >= 22)
    }

    @MainLoopActor @Test func twentyCreateGatherCloseCyclesReleaseTheirSockets() async throws {
        // Warm up once so lazily created process-wide descriptors are not counted as leaks.
        let warmUp = try ICEAgent(configuration: ICETestSupport.configuration(controlling: true))
        _ = try await warmUp.gather()
        warmUp.close()
        try await Task.sleep(for: .milliseconds(200))
        let before = ICETestSupport.openDescriptorCount()
        for cycle in 0..<20 {
            let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: cycle.isMultiple(of: 2)))
            let recorder = ICERecorder()
            recorder.attach(to: agent)
            let local = try await agent.gather()
            #expect(local.candidates.count == 1)
            if cycle.isMultiple(of: 3) {
                try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                                    candidates: [ICETestSupport.loopbackCandidate(port: ICETestSupport.closedUDPPort())])
            }
            agent.close()
            #expect(recorder.states.last == .closed || recorder.states.isEmpty == !cycle.isMultiple(of: 3))
        }
        // libnice releases an agent once its close task has run on the loop.
        let released = await ICETestSupport.wait(timeout: 10) { ICETestSupport.openDescriptorCount() <= before }
        #expect(released, "descriptors before \(before), after \(ICETestSupport.openDescriptorCount())")
    }

    /// close() from inside libnice's own callbacks (state signal, receive callback) must not crash.
    @MainLoopActor @Test func closingFromInsideCallbacksIsSafe() async throws {
        var closesOnReady = try await ICEAgentPair.make()
        let first = closesOnReady.first
        closesOnReady.firstRecorder.attach(to: first, thenOnState: { if $0 == .ready { first.close() } })
        defer { closesOnReady.close() }
        try await closesOnReady.connect()
        #expect(await ICETestSupport.wait { closesOnReady.firstRecorder.states.last == .closed })
        #expect(closesOnReady.firstRecorder.states.suffix(2) == [.ready, .closed])

        var closesOnData = try await ICEAgentPair.make()
        let second = closesOnData.second
        closesOnData.secondRecorder.attach(to: second, thenOnDatagram: { _ in second.close() })
        defer { closesOnData.close() }
        try await closesOnData.connect()
        #expect(await closesOnData.waitUntilReady())
        for index in 0..<10 { closesOnData.first.send(ICETestSupport.datagram(tag: 9, index: index)) }
        #expect(await ICETestSupport.wait { closesOnData.secondRecorder.states.last == .closed })
        try await Task.sleep(for: .milliseconds(100))
        #expect(closesOnData.secondRecorder.datagrams.count == 1)
        #expect(closesOnData.secondRecorder.lateCallbacks == 0)
    }

    @MainLoopActor @Test func droppingTheLastReferenceClosesTheAgent() async throws {
        let recorder = ICERecorder()
        do {
            let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: true))
            recorder.attach(to: agent)
            _ = try await agent.gather()
        }
        #expect(await ICETestSupport.wait { recorder.states == [.closed] })
    }

    @MainLoopActor @Test func misuseIsAnErrorNotACrash() async throws {
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: true))
        defer { agent.close() }
        #expect(throws: ICEError.self) { try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl", candidates: []) }
        let local = try await agent.gather()
        await #expect(throws: ICEError.self) { _ = try await agent.gather() }
        #expect(throws: ICEError.invalidRemoteCredentials) { try agent.setRemote(ufrag: "", pwd: "x", candidates: []) }
        // Unusable candidates (mDNS name, RTCP component, TCP) are skipped, not fatal.
        let odd = [
            ICECandidateLine(foundation: "1", component: 1, priority: 1, address: "abc.local", port: 9, type: .host),
            ICECandidateLine(foundation: "2", component: 2, priority: 1, address: "127.0.0.1", port: 9, type: .host),
            ICECandidateLine(foundation: "3", component: 1, transport: "tcp", priority: 1, address: "127.0.0.1", port: 9,
                             type: .host, extensions: [.init(name: "tcptype", value: "passive")]),
        ]
        try agent.setRemote(ufrag: local.ufrag + "x", pwd: local.pwd, candidates: odd)
        #expect(throws: ICEError.self) { try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl", candidates: []) }
    }

    @MainLoopActor @Test func badConfigurationsAreRejected() throws {
        #expect(throws: ICEError.invalidLocalAddress("no-such-interface0")) {
            _ = try ICEAgent(configuration: ICEConfiguration(controlling: true, localAddresses: ["no-such-interface0"]))
        }
        #expect(throws: ICEError.self) {
            _ = try ICEAgent(configuration: ICEConfiguration(controlling: true, connectTimeout: 0))
        }
        #expect(throws: ICEError.self) {
            _ = try ICEAgent(configuration: ICEConfiguration(controlling: true, gatherTimeout: .nan))
        }
    }

    @MainLoopActor @Test func unresolvableServerFailsGather() async throws {
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.stunServer = ICEServerAddress(host: "no-such-host.invalid", port: 3478)
        let agent = try ICEAgent(configuration: configuration)
        defer { agent.close() }
        await #expect(throws: ICEError.unresolvableServer("no-such-host.invalid")) { _ = try await agent.gather() }
    }

    @MainLoopActor @Test func turnPasswordNeverShows() {
        let server = TURNServer(host: "turn.example.org", port: 443, username: "alice", password: "s3cr3t-PW", transport: .tls)
        var dumped = ""
        dump(server, to: &dumped)
        for text in [server.description, server.debugDescription, String(describing: server), "\(server)", dumped] {
            #expect(!text.contains("s3cr3t-PW"))
        }
        #expect(server.description.contains("alice"))
    }
}

/// The libnice settings the configuration promises, read back from the agent.
@Suite struct ICEAgentSettingsTests {
    @MainLoopActor @Test(arguments: [true, false])
    func libniceAgentIsConfiguredAsAsked(controlling: Bool) throws {
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: controlling))
        defer { agent.close() }
        #expect(agent.session.booleanProperty("upnp") == false)
        #expect(agent.session.booleanProperty("controlling-mode") == controlling)
        #expect(agent.session.booleanProperty("ice-tcp") == false)
        #expect(agent.session.booleanProperty("ice-udp") == true)
        #expect(agent.session.booleanProperty("consent-freshness") == true)
        #expect(agent.session.booleanProperty("keepalive-conncheck") == true)
        #expect(agent.session.booleanProperty("full-mode") == true)
        agent.close()
        #expect(agent.session.booleanProperty("upnp") == nil)
    }

    @MainLoopActor @Test func consentCanBeSwitchedOff() throws {
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.keepaliveConsent = false
        let agent = try ICEAgent(configuration: configuration)
        defer { agent.close() }
        #expect(agent.session.booleanProperty("consent-freshness") == false)
        #expect(agent.session.booleanProperty("keepalive-conncheck") == false)
    }

    @MainLoopActor @Test func iceLitePeerMakesUsControlling() async throws {
        let agent = try ICEAgent(configuration: ICETestSupport.configuration(controlling: false))
        defer { agent.close() }
        _ = try await agent.gather()
        try agent.setRemote(ufrag: "abcd", pwd: "0123456789abcdefghijkl", candidates: [], iceLite: true)
        #expect(agent.session.booleanProperty("controlling-mode") == true)
    }

    @MainLoopActor @Test func iceTCPAddsTCPCandidates() async throws {
        var configuration = ICETestSupport.configuration(controlling: true)
        configuration.iceTCP = true
        let agent = try ICEAgent(configuration: configuration)
        defer { agent.close() }
        #expect(agent.session.booleanProperty("ice-tcp") == true)
        let local = try await agent.gather()
        #expect(local.candidates.contains { $0.transport.lowercased() == "udp" })
        #expect(local.candidates.contains { $0.transport.lowercased() == "tcp" })
    }

    /// RFC 7675: when the peer goes away after ready, consent expires and the agent fails once.
    @MainLoopActor @Test func vanishedPeerLosesConsent() async throws {
        var pair = try await ICEAgentPair.make()
        defer { pair.first.close() }
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        let started = ContinuousClock.now
        pair.second.close()
        #expect(await ICETestSupport.wait(timeout: 40) { pair.firstRecorder.failureCount == 1 })
        print("ICE consent: failure reported \(String(format: "%.1f s", ICETestSupport.seconds(ContinuousClock.now - started))) after the peer closed")
        #expect(pair.firstRecorder.states.last == .failed(ICEState.failureReason))
    }
}

/// Issue 8: no IPv6 link-local host candidates (fe80::, which SDP cannot give a zone) unless
/// `includeLinkLocal` asks for them. Gathering host candidates sends nothing (no STUN, no UPnP).
@Suite struct ICELinkLocalTests {
    /// Whether this machine has an IPv6 link-local address (from /proc/net/if_inet6).
    static var machineHasLinkLocal: Bool {
        let table = (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").contains { $0.hasPrefix("fe8") || $0.hasPrefix("fe9") || $0.hasPrefix("fea") || $0.hasPrefix("feb") }
    }

    @MainLoopActor @Test func noLinkLocalCandidateUnlessAsked() async throws {
        let plain = try ICEAgent(configuration: ICEConfiguration(controlling: true))
        defer { plain.close() }
        let gathered = try await plain.gather().candidates
        #expect(!gathered.contains { NiceLocalAddress.isLinkLocal($0.address) }, "\(gathered)")

        var asked = ICEConfiguration(controlling: true)
        asked.includeLinkLocal = true
        let withLinkLocal = try ICEAgent(configuration: asked)
        defer { withLinkLocal.close() }
        let all = try await withLinkLocal.gather().candidates
        #expect(all.contains { NiceLocalAddress.isLinkLocal($0.address) } == Self.machineHasLinkLocal, "\(all)")
        #expect(all.count >= gathered.count)
    }

    @Test func linkLocalAddressesAreRecognised() {
        for address in ["fe80::1", "FE80::abcd%eth0", "febf::1", "fe9a:1::2"] { #expect(NiceLocalAddress.isLinkLocal(address), "\(address)") }
        for address in ["fe8::1", "fec0::1", "2001:db8::1", "127.0.0.1", "::1", "fd00::2"] { #expect(!NiceLocalAddress.isLinkLocal(address), "\(address)") }
    }
}
