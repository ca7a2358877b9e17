/// The audio codecs this agent can run.
public enum AudioCodecKind: String, Sendable, Equatable, CaseIterable {
    /// Opus (RFC 7587), `opus/48000/2`.
    case opus
    /// G.711 mu-law, `PCMU/8000`.
    case pcmu
    /// G.711 A-law, `PCMA/8000`.
    case pcma

    /// The rtpmap encoding name.
    public var encodingName: String {
        switch self {
        case .opus: "opus"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        }
    }

    /// The RTP clock rate.
    public var clockRate: Int { self == .opus ? 48_000 : 8_000 }

    /// The rtpmap channel count (Opus is always signalled as 2, RFC 7587 section 7).
    public var channels: Int { self == .opus ? 2 : 1 }

    /// The payload type this agent uses in its own offers: 111, 0, 8.
    public var offerPayloadType: UInt8 {
        switch self {
        case .opus: 111
        case .pcmu: 0
        case .pcma: 8
        }
    }

    /// The kind a payload format carries, if it is one of ours. Opus matches regardless of the
    /// channel count (some peers wrongly write `opus/48000`).
    public init?(format: RTPPayloadFormat) {
        guard let kind = Self.allCases.first(where: { format.matches($0.encodingName, clockRate: $0.clockRate) }) else {
            return nil
        }
        self = kind
    }
}

/// The Opus format parameters (RFC 7587 section 6.1) one side signalled: they describe what that
/// side prefers to receive.
public struct OpusParameters: Sendable, Equatable {
    /// `useinbandfec=1`: the side can decode in-band FEC, so FEC should be sent to it.
    public var useInbandFEC: Bool
    /// `usedtx=1`: the side prefers to receive DTX.
    public var useDTX: Bool
    /// `stereo=1`: the side prefers to receive stereo.
    public var stereo: Bool
    /// `sprop-stereo=1`: the side is likely to send stereo.
    public var spropStereo: Bool
    /// `maxplaybackrate`: the highest sample rate the side will play, in Hz.
    public var maxPlaybackRate: Int?
    /// `sprop-maxcapturerate`: the highest sample rate the side captures, in Hz.
    public var spropMaxCaptureRate: Int?
    /// `maxaveragebitrate`: the highest average bitrate the side wants to receive, in bit/s.
    public var maxAverageBitrate: Int?
    /// `cbr=1`: the side prefers constant bitrate.
    public var constantBitrate: Bool
    /// `minptime`: the smallest packet duration the side accepts, in ms.
    public var minPtime: Int?

    /// Reads the parameters from an fmtp dictionary (missing flags are false).
    public init(parameters: [String: String]) {
        func flag(_ key: String) -> Bool { parameters[key]?.trimmingSpaces() == "1" }
        func number(_ key: String) -> Int? { parameters[key].flatMap { Int($0.trimmingSpaces()) } }
        useInbandFEC = flag("useinbandfec")
        useDTX = flag("usedtx")
        stereo = flag("stereo")
        spropStereo = flag("sprop-stereo")
        maxPlaybackRate = number("maxplaybackrate")
        spropMaxCaptureRate = number("sprop-maxcapturerate")
        maxAverageBitrate = number("maxaveragebitrate")
        constantBitrate = flag("cbr")
        minPtime = number("minptime")
    }
}

/// The negotiated audio codec with the payload type to use on the wire.
public enum AudioCodec: Sendable, Equatable {
    /// Opus with the remote side's format parameters.
    case opus(payloadType: UInt8, parameters: OpusParameters)
    /// G.711 mu-law.
    case pcmu(payloadType: UInt8)
    /// G.711 A-law.
    case pcma(payloadType: UInt8)

    /// Builds the codec for a remote payload format of kind `kind`.
    init(kind: AudioCodecKind, format: RTPPayloadFormat) {
        switch kind {
        case .opus: self = .opus(payloadType: format.payloadType, parameters: OpusParameters(parameters: format.parameters))
        case .pcmu: self = .pcmu(payloadType: format.payloadType)
        case .pcma: self = .pcma(payloadType: format.payloadType)
        }
    }

    /// Which codec this is.
    public var kind: AudioCodecKind {
        switch self {
        case .opus: .opus
        case .pcmu: .pcmu
        case .pcma: .pcma
        }
    }

    /// The RTP payload type.
    public var payloadType: UInt8 {
        switch self {
        case .opus(let pt, _), .pcmu(let pt), .pcma(let pt): pt
        }
    }

    /// The RTP clock rate (48000 for Opus, 8000 for G.711).
    public var clockRate: Int { kind.clockRate }

    /// The signalled channel count (2 for Opus, 1 for G.711).
    public var channels: Int { kind.channels }
}
