import AudioCodec
import AudioSDP

/// Makes a call's encoder and decoder for the negotiated codec: the seam through which a call's
/// codecs can be other than libopus and G.711 (a benchmark's cheap far ends). `standard`, the real
/// codecs, is what every call of the product uses.
///
/// Runs on: whichever thread sets the call up (`CallMedia` early, `CallAudioEngine` for the call);
/// the codecs it makes are owned by that call's engine (media clock thread).
public struct CallCodecFactory: Sendable {
    /// One call's codec pair.
    public struct Codecs {
        /// Encodes our 20 ms frames.
        public var encoder: any AudioEncoder
        /// Decodes the peer's payloads to 48 kHz.
        public var decoder: any AudioDecoder
        /// Whether silent (DTX) frames are left out of the stream.
        public var dropsDTXFrames: Bool

        public init(encoder: any AudioEncoder, decoder: any AudioDecoder, dropsDTXFrames: Bool) {
            self.encoder = encoder
            self.decoder = decoder
            self.dropsDTXFrames = dropsDTXFrames
        }
    }

    private let make: @Sendable (AudioCodec, CallMediaConfiguration) throws -> Codecs

    /// A factory calling `make` for each call's negotiated codec.
    public init(_ make: @escaping @Sendable (AudioCodec, CallMediaConfiguration) throws -> Codecs) {
        self.make = make
    }

    /// The codecs for `codec` under `configuration`.
    public func makeCodecs(for codec: AudioCodec, configuration: CallMediaConfiguration) throws -> Codecs {
        try make(codec, configuration)
    }

    /// The real codecs: Opus with the configured bitrate (at most the peer's `maxaveragebitrate`),
    /// FEC and DTX; G.711 µ-law and A-law.
    public static let standard = CallCodecFactory { codec, configuration in
        switch codec {
        case .opus(_, let parameters):
            let bitrate = min(configuration.opusBitrate, parameters.maxAverageBitrate ?? Int.max)
            let settings = OpusEncoderConfiguration(bitrate: max(6_000, bitrate), inbandFEC: configuration.opusFEC,
                                                    dtx: configuration.opusDTX)
            return Codecs(encoder: try OpusEncoder(configuration: settings), decoder: try OpusDecoder(),
                          dropsDTXFrames: configuration.opusDTX)
        case .pcmu:
            return Codecs(encoder: try PCMUEncoder(), decoder: try PCMUDecoder(), dropsDTXFrames: false)
        case .pcma:
            return Codecs(encoder: try PCMAEncoder(), decoder: try PCMADecoder(), dropsDTXFrames: false)
        }
    }
}
