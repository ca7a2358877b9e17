import AudioSDP
import CNice
import MainLoop

/// Conversions between libnice candidates and the SDP layer's `ICECandidateLine`.
/// Every function here touches libnice and must run on the agent's loop thread.
enum NiceCandidateConversion {
    /// Our candidate as SDP, written by libnice itself and parsed by the SDP layer.
    static func candidateLine(agent: OpaquePointer, candidate: UnsafeMutablePointer<NiceCandidate>) -> ICECandidateLine? {
        guard let text = nice_agent_generate_local_candidate_sdp(agent, candidate) else { return nil }
        defer { g_free(text) }
        var value = String(cString: text)
        if value.hasPrefix("a=") { value.removeFirst(2) }
        do {
            return try ICECandidateLine(parsing: value)
        } catch {
            Log.warning("ice", "libnice wrote a candidate the SDP layer rejects: \(value) (\(error))")
            return nil
        }
    }

    /// A new libnice candidate for `line` (free it with `nice_candidate_free`), or nil when
    /// libnice cannot use it (such as an mDNS host name).
    static func niceCandidate(agent: OpaquePointer, streamID: guint, line: ICECandidateLine) -> UnsafeMutablePointer<NiceCandidate>? {
        // libnice matches the type token case-sensitively; `attributeValue` writes lowercase.
        nice_agent_parse_remote_candidate_sdp(agent, streamID, "a=" + line.attributeValue)
    }

    /// One side of a selected pair.
    static func endpoint(_ candidate: UnsafeMutablePointer<NiceCandidate>) -> ICEPairEndpoint {
        var buffer = [CChar](repeating: 0, count: 64) // NICE_ADDRESS_STRING_LEN is INET6_ADDRSTRLEN (46)
        withUnsafePointer(to: &candidate.pointee.addr) { address in
            nice_address_to_string(address, &buffer)
        }
        let port = withUnsafePointer(to: &candidate.pointee.addr) { Int(nice_address_get_port($0)) }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return ICEPairEndpoint(address: text, port: port, type: candidateType(candidate.pointee.type),
                               transport: candidate.pointee.transport == NICE_CANDIDATE_TRANSPORT_UDP ? "udp" : "tcp")
    }

    private static func candidateType(_ type: NiceCandidateType) -> ICECandidateLine.CandidateType {
        switch type {
        case NICE_CANDIDATE_TYPE_HOST: .host
        case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: .serverReflexive
        case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: .peerReflexive
        case NICE_CANDIDATE_TYPE_RELAYED: .relayed
        default: .other(String(type.rawValue))
        }
    }
}
