import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// Issue 10 "real relays", STUN part: the agent sits on a private LAN behind a MASQUERADE NAT
/// (MasqueradingNAT: namespaces the test creates), the emulator, its aiortc caller and coturn's
/// STUN on the public side. The public side cannot reach the agent's host candidate, so a call can
/// only connect through the NAT's mapping. With `[media] stun` (and no TURN) the agent's answer
/// must carry a `typ srflx` candidate with the NAT's public address, and the call must carry audio
/// both ways on it. Root only (ip netns, nft); skipped, visibly, otherwise.
@Suite(.serialized, .enabled(if: MasqueradingNAT.available,
                             "needs root, iproute2, nftables (make deps) and a kernel that lets this process create network namespaces, veth pairs and nft NAT rules"))
struct STUNBehindNATTests {
    /// One `a=candidate` line of an SDP: address, port, type and (for srflx) the base address.
    struct Candidate: Equatable {
        let address: String
        let port: Int
        let type: String
        let relatedAddress: String?

        /// Parses `a=candidate:F C udp PRIO ADDR PORT typ TYPE [raddr A rport P]`; nil for other lines.
        init?(line: String) {
            let words = line.split(separator: " ").map(String.init)
            guard line.hasPrefix("a=candidate:"), words.count >= 8, words[6] == "typ", let port = Int(words[5]) else { return nil }
            address = words[4]
            self.port = port
            type = words[7]
            relatedAddress = words.firstIndex(of: "raddr").flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
        }
    }

    @Test func aCallBehindANATIsAnsweredWithAServerReflexiveCandidateAndCarriesAudioBothWays() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let nat = try MasqueradingNAT(scratch: scratch)
            let stun = try CoturnProcess(user: "agent", password: "unused-PW-4411", scratch: scratch, address: nat.publicAddress)
            let config = scratch.write("agent.conf", "[media]\nstun = \(nat.publicAddress):\(stun.port)\n")
            let h = try AgentHarness(media: .webrtc) { _ in ["--host", nat.publicAddress, "--ice-address", nat.publicAddress] }
            let server = h.emulator.url.replacingOccurrences(of: "127.0.0.1", with: nat.publicAddress)
            try h.start(server: server, extra: ["--config", config, "--answer", "auto", "--audio-source", "tone:880", "--audio-sink", "null"],
                        launcher: nat.launcher)
            let id = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440").callId
            try h.waitFor("audio both ways through the NAT", timeout: 30) {
                let media = try h.emulator.control.call(id)?.media
                return (media?.packetsReceived ?? 0) > 100 && (media?.packetsSent ?? 0) > 100
            }

            let answer = try #require(try h.emulator.control.call(id)?.answerSdp, "the emulator holds no answer SDP")
            let candidates = answer.split(whereSeparator: \.isNewline).compactMap { Candidate(line: String($0)) }
            let reflexive = try #require(candidates.first { $0.type == "srflx" }, "no srflx candidate in the answer:\n\(answer)")
            #expect(reflexive.address == nat.natAddress && reflexive.relatedAddress == nat.privateAddress, "\(reflexive)")
            #expect(candidates.contains { $0.type == "host" && $0.address == nat.privateAddress }, "\(candidates)")
            #expect(!candidates.contains { $0.type == "relay" } && !candidates.contains { $0.address == nat.publicAddress })

            // The emulator's checks: the pair to the NAT's mapping succeeded, the one to the private host never did.
            let checks = h.emulator.log().split(separator: "\n").filter { $0.contains("Check CandidatePair") && $0.contains("SUCCEEDED") }
            #expect(checks.contains { $0.contains("-> ('\(nat.natAddress)', \(reflexive.port))") }, "\(checks)")
            #expect(!checks.contains { $0.contains("-> ('\(nat.privateAddress)'") }, "the public side reached the private address: \(checks)")
            // libnice names the pair by the srflx candidate it nominated.
            let selected = h.log().split(separator: "\n").filter { $0.contains("selected pair") }
            #expect(!selected.isEmpty && selected.allSatisfy { $0.contains("\(nat.natAddress):\(reflexive.port) srflx <-> \(nat.publicAddress):") },
                    "\(selected)")

            #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
            try h.waitFor("the call record") { try CallRecordStore(directory: h.stateDir).read().contains { $0.callId == id } }
            let record = try #require(try CallRecordStore(directory: h.stateDir).read().first { $0.callId == id })
            // The wait above saw > 100 packets at the far end; the agent reads at its media clock's tick, so at the
            // hang-up its own count can trail what the far end sent by a tick or two (CI read 100 once).
            #expect(record.endResult == .completed && (record.media?.packetsReceived ?? 0) > 80, "\(record)")
        }
    }

    @Test func candidateLinesAreParsed() throws {
        let srflx = try #require(Candidate(line: "a=candidate:2 1 UDP 1679819007 198.19.100.2 38625 typ srflx raddr 198.18.100.2 rport 38625"))
        #expect(srflx == Candidate(line: "a=candidate:2 1 udp 1 198.19.100.2 38625 typ srflx raddr 198.18.100.2 rport 1"))
        #expect(srflx.address == "198.19.100.2" && srflx.port == 38625 && srflx.type == "srflx" && srflx.relatedAddress == "198.18.100.2")
        #expect(Candidate(line: "a=candidate:1 1 UDP 2015363327 198.18.100.2 38625 typ host")?.relatedAddress == nil)
        #expect(Candidate(line: "a=end-of-candidates") == nil && Candidate(line: "a=candidate:1 1 UDP 1 x notaport typ host") == nil)
    }
}
