import AudioCodec
import AudioJitter
import AudioSDP
/// The encoder and decoder for a negotiated codec, with its RTP timing.
///
/// Not Sendable (the codecs are not): made and owned by `CallAudioEngine`, whose encoder and
/// playout run on the media clock thread only. `CallMedia` makes one early as well, to refuse
/// an unusable codec before ICE and to size the jitter buffer.
struct CallCodecSet {
    /// The negotiated codec and payload type.
    let codec: AudioCodec
    /// Encodes our 20 ms frames.
    let encoder: any AudioEncoder
    /// Decodes the peer's payloads to 48 kHz.
    let decoder: any AudioDecoder
    /// Whether silent (DTX) frames are left out of the stream.
    let dropsDTXFrames: Bool

    /// Creates the codec pair. Opus uses the configured bitrate (at most the peer's
    /// `maxaveragebitrate`), FEC and DTX settings.
    init(codec: AudioCodec, configuration: CallMediaConfiguration) throws(CallMediaError) {
        self.codec = codec
        do {
            switch codec {
            case .opus(_, let parameters):
                if let cheap = configuration.benchmarkCodecs {  // wcs-bench-peer --cheap only
                    (encoder, decoder, dropsDTXFrames) = (cheap.makeEncoder(), try cheap.makeDecoder(), false)
                    break
                }
                let bitrate = min(configuration.opusBitrate, parameters.maxAverageBitrate ?? Int.max)
                let settings = OpusEncoderConfiguration(bitrate: max(6_000, bitrate), inbandFEC: configuration.opusFEC,
                                                        dtx: configuration.opusDTX)
                encoder = try OpusEncoder(configuration: settings)
                decoder = try OpusDecoder()
                dropsDTXFrames = configuration.opusDTX
            case .pcmu:
                encoder = try PCMUEncoder()
                decoder = try PCMUDecoder()
                dropsDTXFrames = false
            case .pcma:
                encoder = try PCMAEncoder()
                decoder = try PCMADecoder()
                dropsDTXFrames = false
            }
        } catch {
            throw .setup("\(codec.kind.encodingName) codec: \(error)")
        }
    }

    /// RTP timestamp units per 20 ms frame (960 for Opus, 160 for G.711).
    var timestampStep: Int { codec.clockRate / 50 }

    /// The jitter buffer configuration: `template`'s delay tuning with this codec's clock and frame.
    func jitterConfiguration(from template: JitterBufferConfiguration) -> JitterBufferConfiguration {
        var configuration = template
        configuration.clockRate = codec.clockRate
        configuration.frameSamples = timestampStep
        return configuration
    }
}
