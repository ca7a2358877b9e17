import AudioSDP
/// A snapshot of one call's media counters (`CallMedia.statistics()`).
public struct CallMediaStatistics: Sendable, Equatable {
    /// The negotiated codec, nil before negotiation.
    public var codec: AudioCodecKind?
    /// The negotiated payload type of that codec.
    public var payloadType: UInt8?
    /// The SRTP profile DTLS negotiated, nil before DTLS is connected.
    public var srtpProfile: String?
    /// RTP packets sent (audio and telephone events).
    public var packetsSent = 0
    /// RTP payload bytes sent.
    public var bytesSent = 0
    /// RTP packets received and decrypted (audio and telephone events, duplicates included).
    public var packetsReceived = 0
    /// RTP payload bytes received.
    public var bytesReceived = 0
    /// Received packets lost: expected minus received (RFC 3550 A.3; negative with duplicates).
    public var packetsLost = 0
    /// `packetsLost` over the packets expected, 0...1.
    public var fractionLost = 0.0
    /// Interarrival jitter of the received stream in milliseconds (RFC 3550 A.8).
    public var jitterMs = 0.0
    /// The round-trip time from the latest RTCP report about our stream, in milliseconds.
    public var roundTripTimeMs: Double?
    /// What the peer's latest RTCP report says about our stream: cumulative packets lost.
    public var remotePacketsLost: Int?
    /// What the peer's latest RTCP report says about our stream: fraction lost, 0...1.
    public var remoteFractionLost: Double?
    /// RTCP compounds sent.
    public var rtcpSent = 0
    /// Of the RTP packets and RTCP compounds sent, those put straight on the selected pair's UDP
    /// socket (`ICEAgent.sendMedia`); the rest went through libnice (before a pair was selected,
    /// relayed or TCP pairs).
    public var packetsSentDirect = 0
    /// RTCP compounds received and decrypted.
    public var rtcpReceived = 0
    /// Whether the peer sent an RTCP BYE (it ended its stream).
    public var goodbyeReceived = false
    /// Received datagrams dropped: SRTP authentication or replay failures, unparsable packets,
    /// unknown payload types.
    public var packetsDiscarded = 0
    /// Frames decoded from received packets.
    public var framesDecoded = 0
    /// Playout slots concealed (loss, late packets, underruns; Opus FEC included).
    public var concealedFrames = 0
    /// Of `concealedFrames`, the lost frames rebuilt from the next packet's Opus in-band FEC.
    public var framesRecoveredFEC = 0
    /// Packets that arrived after their playout slot.
    public var latePackets = 0
    /// The jitter buffer's current target delay in milliseconds.
    public var jitterBufferTargetMs = 0.0
    /// Seconds from `answer(offer:)` / `applyAnswer(_:)` to the first decoded frame.
    public var firstAudioLatency: Double?
    /// The pair ICE selected, nil until one is.
    public var selectedPair: ICESelectedPair?

    /// The selected local candidate type (host, srflx, prflx, relay).
    public var localCandidateType: ICECandidateLine.CandidateType? { selectedPair?.local.type }
    /// The selected remote candidate type.
    public var remoteCandidateType: ICECandidateLine.CandidateType? { selectedPair?.remote.type }

    /// An empty snapshot.
    public init() {}
}
