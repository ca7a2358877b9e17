import AudioPipe
import AudioCodec
import Synchronization

extension CallMediaBenchmark {
    /// A few seconds of a tone, Opus-encoded once at the settings a call would use, for far ends
    /// that replay them instead of encoding (`CheapCodecs`). Immutable: one set serves every call
    /// of a process, from any thread.
    public struct PreEncodedOpus: Sendable {
        /// The 20 ms Opus payloads, in order; replayed in a loop.
        public let frames: [[UInt8]]

        /// Encodes `seconds` of a `frequency` Hz tone (amplitude 0.5) with the Opus settings a
        /// call made with `configuration` would use (its bitrate, FEC and DTX; libopus defaults
        /// otherwise, complexity 5). A whole number of tone periods per second makes the loop seamless.
        public init(configuration: CallMediaConfiguration, seconds: Double = 2, frequency: Double = 440) throws {
            let settings = OpusEncoderConfiguration(bitrate: configuration.opusBitrate, inbandFEC: configuration.opusFEC,
                                                    dtx: false)
            let encoder = try OpusEncoder(configuration: settings)
            let tone = ToneSource(frequency: frequency)
            var pcm = [Int16](repeating: 0, count: AudioFormat.samplesPerFrame)
            var frames: [[UInt8]] = []
            for _ in 0..<max(1, Int(seconds * 50)) {
                _ = pcm.withUnsafeMutableBufferPointer { tone.read(into: $0) }
                frames.append(try encoder.encode(pcm))
            }
            self.frames = frames
        }
    }

    /// What a `CheapCodecs` decoder found in the packets it received.
    public struct Verification: Sendable, Equatable {
        /// Packets really decoded by libopus (the first, then one in `verifyEvery`).
        public var decoded = 0
        /// The other packets: only their Opus table-of-contents byte was read (cheap).
        public var checked = 0
        /// Packets libopus (or the TOC check) refused.
        public var failed = 0
        /// The quietest and loudest decoded frame, RMS in dB below full scale (nil before one).
        public var quietestDB: Double?
        /// See `quietestDB`.
        public var loudestDB: Double?
    }

    /// The codecs of a cheap far end for the scaling bench (`wcs-bench-peer --cheap`): the encoder
    /// replays `PreEncodedOpus` frames (the packetizer still gives them running sequence numbers
    /// and timestamps), and the decoder decodes only the first packet and then one in
    /// `verifyEvery`, to prove the audio is real Opus; it checks every other packet's TOC byte
    /// and plays silence for it. Everything else of the call (ICE, DTLS, SRTP, jitter buffer, RTCP,
    /// loss counting) runs as usual. Set its `factory` as `CallMediaConfiguration.codecFactory`, one
    /// per call (it counts that call's verification); G.711 calls keep the real codecs.
    ///
    /// Runs on: the media clock thread (the codecs it makes, like any call's); `verification` from
    /// any thread (a `Mutex`). Why it exists: a far end that encodes and decodes every frame costs
    /// as much CPU as the agent, so 64 calls on 2 cores would measure the machine, not the agent.
    public final class CheapCodecs: Sendable {
        /// The frames the encoder replays.
        public let frames: PreEncodedOpus
        /// One received packet in this many is decoded by libopus.
        public let verifyEvery: Int
        private let found = Mutex(Verification())

        /// Cheap codecs replaying `frames`, decoding one packet in `verifyEvery` (at least 1).
        public init(frames: PreEncodedOpus, verifyEvery: Int = 50) {
            self.frames = frames
            self.verifyEvery = max(1, verifyEvery)
        }

        /// What the decoder found so far.
        public var verification: Verification { found.withLock { $0 } }

        /// The codec factory for a call's configuration: these codecs for Opus, the real ones otherwise.
        public var factory: CallCodecFactory {
            CallCodecFactory { [self] codec, configuration in
                guard case .opus = codec else { return try CallCodecFactory.standard.makeCodecs(for: codec, configuration: configuration) }
                return CallCodecFactory.Codecs(encoder: ReplayEncoder(frames: frames.frames),
                                               decoder: try SampledOpusDecoder(every: verifyEvery, report: self), dropsDTXFrames: false)
            }
        }

        func record(_ update: (inout Verification) -> Void) { found.withLock { update(&$0) } }
    }
}
