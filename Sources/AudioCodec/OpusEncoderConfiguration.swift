import COpus

/// Settings of an `OpusEncoder`. The defaults suit a voice call: VOIP application, 32 kbit/s,
/// complexity 5, in-band FEC on for 10 % expected loss, DTX off, 20 ms frames.
public struct OpusEncoderConfiguration: Sendable, Equatable {
    /// The libopus application mode.
    public enum Application: Sendable, Equatable {
        /// Speech-optimised (`OPUS_APPLICATION_VOIP`).
        case voip
        /// General audio (`OPUS_APPLICATION_AUDIO`).
        case audio
        /// Lowest delay, CELT only (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`); no in-band FEC.
        case restrictedLowDelay

        var rawValue: Int32 {
            switch self {
            case .voip: OPUS_APPLICATION_VOIP
            case .audio: OPUS_APPLICATION_AUDIO
            case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
            }
        }
    }

    /// A hint about the content, which steers the SILK/CELT mode decision.
    public enum Signal: Sendable, Equatable {
        /// Let libopus detect speech or music.
        case auto
        /// Speech: favours SILK, the mode that carries in-band FEC.
        case voice
        /// Music: favours CELT.
        case music

        var rawValue: Int32 {
            switch self {
            case .auto: wcs_opus_signal_auto
            case .voice: wcs_opus_signal_voice
            case .music: wcs_opus_signal_music
            }
        }
    }

    /// The application mode (default `.voip`).
    public var application: Application
    /// Target bitrate in bit/s, 6 000…510 000 (default 32 000).
    public var bitrate: Int
    /// Encoder complexity 0…10 (default 5).
    public var complexity: Int
    /// In-band forward error correction (LBRR), decodable with `OpusDecoder.decodeFEC` (default on).
    public var inbandFEC: Bool
    /// Expected packet loss in percent, 0…100; sizes the FEC data (default 10).
    public var expectedPacketLossPercent: Int
    /// Discontinuous transmission: during silence the encoder emits ≤ 2-byte frames (default off).
    public var dtx: Bool
    /// The content hint (default `.auto`).
    public var signal: Signal

    /// Creates a configuration; every parameter has the voice-call default.
    public init(
        application: Application = .voip,
        bitrate: Int = 32_000,
        complexity: Int = 5,
        inbandFEC: Bool = true,
        expectedPacketLossPercent: Int = 10,
        dtx: Bool = false,
        signal: Signal = .auto
    ) {
        self.application = application
        self.bitrate = bitrate
        self.complexity = complexity
        self.inbandFEC = inbandFEC
        self.expectedPacketLossPercent = expectedPacketLossPercent
        self.dtx = dtx
        self.signal = signal
    }

    /// Throws `CodecError.invalidConfiguration` naming the first out-of-range value.
    public func validate() throws {
        guard (6_000...510_000).contains(bitrate) else {
            throw CodecError.invalidConfiguration("bitrate \(bitrate) is outside 6000…510000 bit/s")
        }
        guard (0...10).contains(complexity) else {
            throw CodecError.invalidConfiguration("complexity \(complexity) is outside 0…10")
        }
        guard (0...100).contains(expectedPacketLossPercent) else {
            throw CodecError.invalidConfiguration("expected packet loss \(expectedPacketLossPercent) % is outside 0…100")
        }
    }
}
