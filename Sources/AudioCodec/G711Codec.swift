
/// The G.711 RTP clock and frame length.
enum G711Timing {
    /// G.711 runs at 8 kHz.
    static let sampleRate = 8_000
    /// 20 ms at 8 kHz.
    static let samplesPerFrame = 160
}

/// G.711 encoder: one 20 ms frame of 48 kHz mono in, 160 companded bytes out. Downsampling to
/// 8 kHz uses a streaming `Resampler` (`.telephony` quality). Use `PCMUEncoder` or `PCMAEncoder`.
///
/// Runs on: its owner's thread, one call at a time (the media clock thread in a call). Not
/// Sendable and without a lock, like every codec: the compiler keeps it with its owner.
public class G711Encoder: AudioEncoder {
    /// The companding law.
    public let law: G711.Law
    private let downsampler: FrameResampler

    init(law: G711.Law) throws {
        self.law = law
        downsampler = try FrameResampler(inputRate: AudioFormat.sampleRate, outputRate: G711Timing.sampleRate)
    }

    /// Always 8 000.
    public var clockRate: Int { G711Timing.sampleRate }

    /// Always false: G.711 has no DTX.
    public var lastFrameWasDTX: Bool { false }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>) throws -> [UInt8] {
        guard pcm.count == AudioFormat.samplesPerFrame else {
            throw CodecError.wrongFrameSize(expected: AudioFormat.samplesPerFrame, got: pcm.count)
        }
        let narrow = try downsampler.process(pcm)
        let law = self.law
        return narrow.map { G711.encode($0, law: law) }
    }
}

/// G.711 decoder: companded bytes in (160 per 20 ms), 48 kHz mono out. Upsampling uses a
/// streaming `Resampler`; concealment repeats the last frame with fading, then silence.
/// Use `PCMUDecoder` or `PCMADecoder`.
///
/// Runs on: its owner's thread, one call at a time (the media clock thread in a call); not
/// Sendable, no lock.
public class G711Decoder: AudioDecoder {
    /// The companding law.
    public let law: G711.Law
    private let upsampler: FrameResampler
    private var lastFrame = [Int16](repeating: 0, count: G711Timing.samplesPerFrame)
    private var concealedInARow = 0

    init(law: G711.Law) throws {
        self.law = law
        upsampler = try FrameResampler(inputRate: G711Timing.sampleRate, outputRate: AudioFormat.sampleRate)
    }

    /// Always 8 000.
    public var clockRate: Int { G711Timing.sampleRate }

    public func decode(_ payload: UnsafeRawBufferPointer) throws -> [Int16] {
        guard !payload.isEmpty else { throw CodecError.emptyPayload }
        let law = self.law
        let narrow = payload.map { G711.decode($0, law: law) }
        concealedInARow = 0
        lastFrame = narrow
        return try narrow.withUnsafeBufferPointer { try upsampler.process($0) }
    }

    /// Repeats the last frame at half the previous gain per lost frame; silence after four.
    public func conceal() -> [Int16] {
        concealedInARow += 1
        let shift = min(concealedInARow, 15)
        let narrow = concealedInARow > 4 ? [Int16](repeating: 0, count: lastFrame.count)
                                         : lastFrame.map { $0 >> shift }
        return (try? narrow.withUnsafeBufferPointer { try upsampler.process($0) })
            ?? [Int16](repeating: 0, count: narrow.count * 6)
    }

    /// G.711 has no FEC: same as `conceal()`.
    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer) -> [Int16] { conceal() }
}

/// G.711 µ-law encoder (RTP payload type 0, PCMU/8000).
public final class PCMUEncoder: G711Encoder {
    /// Creates an encoder with its own resampler state.
    public init() throws { try super.init(law: .muLaw) }
}

/// G.711 A-law encoder (RTP payload type 8, PCMA/8000).
public final class PCMAEncoder: G711Encoder {
    /// Creates an encoder with its own resampler state.
    public init() throws { try super.init(law: .aLaw) }
}

/// G.711 µ-law decoder (RTP payload type 0, PCMU/8000).
public final class PCMUDecoder: G711Decoder {
    /// Creates a decoder with its own resampler state.
    public init() throws { try super.init(law: .muLaw) }
}

/// G.711 A-law decoder (RTP payload type 8, PCMA/8000).
public final class PCMADecoder: G711Decoder {
    /// Creates a decoder with its own resampler state.
    public init() throws { try super.init(law: .aLaw) }
}
