@testable import AudioSDP
import Testing

@Suite struct SDPCandidateTests {
    static let roundTrips = [
        "candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 48565 typ host",
        "candidate:842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 10.0.0.2 rport 61665 generation 0 network-cost 999",
        "candidate:3 1 UDP 16777215 203.0.113.9 3478 typ relay raddr 198.51.100.7 rport 50000",
        "candidate:1467250027 1 tcp 1518280447 192.0.2.44 9 typ host tcptype active generation 0",
        "candidate:4 2 udp 2130706430 2001:db8::1 40001 typ host",
        "candidate:5 1 udp 2122260223 3f5a8e0c-1b2d-4c3e-9f70-6a1b2c3d4e5f.local 53456 typ host",
        "candidate:6 1 udp 1845501695 192.0.2.1 1234 typ prflx",
        "candidate:7 1 udp 100 192.0.2.1 1234 typ futuretype",
    ]

    @Test(arguments: roundTrips)
    func parsesAndSerializesBack(text: String) throws {
        let candidate = try ICECandidateLine(parsing: text)
        #expect(candidate.attributeValue == text)
        // The prefix is optional (trickle-style strings).
        #expect(try ICECandidateLine(parsing: String(text.dropFirst("candidate:".count))) == candidate)
    }

    @Test func fieldsOfASrflxCandidate() throws {
        let candidate = try ICECandidateLine(parsing: Self.roundTrips[1])
        #expect(candidate.foundation == "842163049")
        #expect(candidate.component == 1)
        #expect(candidate.transport == "udp")
        #expect(candidate.priority == 1677729535)
        #expect(candidate.address == "198.51.100.7" && candidate.port == 61665)
        #expect(candidate.type == .serverReflexive)
        #expect(candidate.relatedAddress == "10.0.0.2" && candidate.relatedPort == 61665)
        #expect(candidate.extensions == [.init(name: "generation", value: "0"), .init(name: "network-cost", value: "999")])
        #expect(try ICECandidateLine(parsing: Self.roundTrips[7]).type == .other("futuretype"))
    }

    @Test func builtCandidateSerializes() {
        let candidate = ICECandidateLine(foundation: "1", component: 1, priority: 2130706431, address: "127.0.0.1",
                                         port: 5000, type: .host, extensions: [.init(name: "generation", value: "0")])
        #expect(candidate.attributeValue == "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host generation 0")
    }

    static let bad: [(String, String)] = [
        ("candidate:1 1 udp 1 127.0.0.1 5000 host", "fewer than 8 fields"),
        ("candidate:1 0 udp 1 127.0.0.1 5000 typ host", "component"),
        ("candidate:1 1 udp 99999999999 127.0.0.1 5000 typ host", "priority"),
        ("candidate:1 1 udp 1 127.0.0.1 65536 typ host", "port"),
        ("candidate:1 1 udp 1 127.0.0.1 5000 type host", "'typ'"),
        ("candidate:1 1 udp 1 127.0.0.1 5000 typ srflx raddr", "has no value"),
        ("candidate:1 1 udp 1 127.0.0.1 5000 typ srflx raddr 1.2.3.4 rport x", "rport"),
    ]

    @Test(arguments: bad)
    func rejectsMalformedCandidates(text: String, reason: String) {
        let error = #expect(throws: SDPError.self) { try ICECandidateLine(parsing: text, lineNumber: 12) }
        #expect(error?.line == 12)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }
}
