import AudioCodec
import AudioJitter
import AudioSDP
/// The encoder and decoder for a negotiated codec, with its RTP timing.
///
/// Not Sendable (the codecs are not): made and owned by `CallAudioEngine`, whose encoder and
/// playout run on the media clock thread only. `CallMedia` makes one early as well, to refuse
/// an unusable codec before ICE and to size the jitter buffer.
package struct CallCodecSet {
    /// The negotiated codec and payload type.
    package let codec: AudioCodec
    /// Encodes our 20 ms frames.
    package let encoder: any AudioEncoder
    /// Decodes the peer's payloads to 48 kHz.
    package let decoder: any AudioDecoder
    /// Whether silent (DTX) frames are left out of the stream.
    package let dropsDTXFrames: Bool

    /// Creates the codec pair with the configuration's `codecFactory` (the real codecs unless a
    /// benchmark set its own).
    package init(codec: AudioCodec, configuration: CallMediaConfiguration) throws(CallMediaError) {
        self.codec = codec
        do {
            let made = try configuration.codecFactory.makeCodecs(for: codec, configuration: configuration)
            (encoder, decoder, dropsDTXFrames) = (made.encoder, made.decoder, made.dropsDTXFrames)
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
