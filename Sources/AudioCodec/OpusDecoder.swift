import COpus

/// A libopus decoder producing 48 kHz mono. Stereo packets are accepted: a decoder created with
/// one channel makes libopus downmix them.
///
/// The array methods decode into one reused buffer and copy out; the `into:` methods decode straight
/// into the caller's buffer and allocate nothing.
///
/// Runs on: its owner's thread, one call at a time (in a call: the media clock thread, through
/// `CallPlayout`). Not Sendable and without a lock: the compiler keeps it with its owner.
public final class OpusDecoder: AudioDecoder {
    /// The longest Opus packet: 120 ms at 48 kHz.
    static let maxFrameSamples = 5_760

    private let decoder: OpaquePointer
    private var pcm = [Int16](repeating: 0, count: OpusDecoder.maxFrameSamples)

    /// Creates a 48 kHz mono decoder.
    public init() throws {
        var error: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(AudioFormat.sampleRate), 1, &error), error == OPUS_OK else {
            throw opusError(error == OPUS_OK ? OPUS_ALLOC_FAIL : error, "opus_decoder_create")
        }
        self.decoder = decoder
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Always 48 000 (the Opus RTP clock).
    public var clockRate: Int { AudioFormat.sampleRate }

    /// How many 48 kHz samples a packet holds, without decoding it.
    public static func sampleCount(of payload: UnsafeRawBufferPointer) throws -> Int {
        guard let base = payload.baseAddress, !payload.isEmpty else { throw CodecError.emptyPayload }
        return Int(try checkOpus(opus_packet_get_nb_samples(base.assumingMemoryBound(to: UInt8.self),
                                                            Int32(payload.count), Int32(AudioFormat.sampleRate)),
                                 "opus_packet_get_nb_samples"))
    }

    public func decode(_ payload: UnsafeRawBufferPointer) throws -> [Int16] {
        guard let base = payload.baseAddress, !payload.isEmpty else { throw CodecError.emptyPayload }
        return try run("opus_decode", base.assumingMemoryBound(to: UInt8.self), payload.count,
                       frameSize: Self.maxFrameSamples, fec: false)
    }

    public func conceal() -> [Int16] {
        (try? run("opus_decode(PLC)", nil, 0, frameSize: lastPacketDuration(), fec: false))
            ?? [Int16](repeating: 0, count: AudioFormat.samplesPerFrame)
    }

    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer) -> [Int16] {
        guard let base = nextPayload.baseAddress, !nextPayload.isEmpty else { return conceal() }
        let recovered = try? run("opus_decode(FEC)", base.assumingMemoryBound(to: UInt8.self), nextPayload.count,
                                 frameSize: lastPacketDuration(), fec: true)
        return recovered ?? conceal()
    }

    public func decode(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        guard let base = payload.baseAddress, !payload.isEmpty else { throw CodecError.emptyPayload }
        return try decodeInto(output, "opus_decode", base.assumingMemoryBound(to: UInt8.self), payload.count,
                              frameSize: min(output.count, Self.maxFrameSamples), fec: false)
    }

    public func conceal(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let frameSize = min(lastPacketDuration(), output.count)
        if let count = try? decodeInto(output, "opus_decode(PLC)", nil, 0, frameSize: frameSize, fec: false) { return count }
        let silent = min(AudioFormat.samplesPerFrame, output.count)
        UnsafeMutableBufferPointer(rebasing: output[0..<silent]).update(repeating: 0)
        return silent
    }

    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let base = nextPayload.baseAddress, !nextPayload.isEmpty else { return conceal(into: output) }
        let recovered = try? decodeInto(output, "opus_decode(FEC)", base.assumingMemoryBound(to: UInt8.self), nextPayload.count,
                                        frameSize: min(lastPacketDuration(), output.count), fec: true)
        return recovered ?? conceal(into: output)
    }

    /// Calls `opus_decode` straight into `output`.
    private func decodeInto(_ output: UnsafeMutableBufferPointer<Int16>, _ function: String, _ data: UnsafePointer<UInt8>?,
                            _ length: Int, frameSize: Int, fec: Bool) throws -> Int {
        guard let out = output.baseAddress else { throw CodecError.invalidConfiguration("empty output buffer") }
        return Int(try checkOpus(opus_decode(decoder, data, Int32(length), out, Int32(frameSize), fec ? 1 : 0), function))
    }

    /// Clears the decoder's history, as for a new stream.
    public func reset() {
        _ = wcs_opus_decoder_reset_state(decoder)
    }

    /// The duration of the last decoded packet, which is what a lost packet most likely held.
    private func lastPacketDuration() -> Int {
        var duration: Int32 = 0
        guard wcs_opus_decoder_get_last_packet_duration(decoder, &duration) == OPUS_OK, duration > 0 else {
            return AudioFormat.samplesPerFrame
        }
        return min(Int(duration), Self.maxFrameSamples)
    }

    /// Calls `opus_decode` into the shared buffer and copies out the decoded samples.
    private func run(_ function: String, _ data: UnsafePointer<UInt8>?, _ length: Int,
                     frameSize: Int, fec: Bool) throws -> [Int16] {
        let decoded = try pcm.withUnsafeMutableBufferPointer { out in
            try checkOpus(opus_decode(decoder, data, Int32(length), out.baseAddress!, Int32(frameSize), fec ? 1 : 0),
                          function)
        }
        return Array(pcm[0..<Int(decoded)])
    }
}
