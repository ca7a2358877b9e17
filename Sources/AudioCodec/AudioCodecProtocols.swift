import FoundationEssentials

/// Encodes 20 ms frames of 48 kHz mono 16-bit audio into RTP payloads.
///
/// Implementations are not Sendable and hold no lock: a stream is stateful, so one owner feeds
/// it frames of one stream, in order, on one thread at a time (in a call, the media clock
/// thread through `CallAudioEngine`); the compiler keeps the encoder with that owner.
public protocol AudioEncoder: AnyObject {
    /// The RTP clock rate of the produced payloads (48 000 for Opus, 8 000 for G.711).
    /// The RTP timestamp advances by `clockRate / 50` per 20 ms frame.
    var clockRate: Int { get }

    /// Encodes one frame of exactly `AudioFormat.samplesPerFrame` (960) samples.
    /// Throws `CodecError.wrongFrameSize` for any other length.
    func encode(_ pcm: UnsafeBufferPointer<Int16>) throws -> [UInt8]

    /// True when the last encoded frame was a DTX frame (payload of at most 2 bytes) that a
    /// sender may choose not to transmit. Always false for codecs without DTX.
    var lastFrameWasDTX: Bool { get }

    /// `encode(_:)` into `output` (1 500 bytes are always enough); returns the payload length.
    /// The send path uses it to encode without allocating.
    func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Decodes RTP payloads into 48 kHz mono 16-bit samples, with loss concealment.
///
/// Implementations are not Sendable and hold no lock: one owner decodes one stream, in order
/// (in a call, the media clock thread through `CallPlayout`).
public protocol AudioDecoder: AnyObject {
    /// The RTP clock rate of the payloads this decoder accepts (48 000 for Opus, 8 000 for G.711).
    var clockRate: Int { get }

    /// Decodes one payload into 48 kHz mono samples (960 for a 20 ms packet).
    /// Throws `CodecError` for an empty or corrupt payload.
    func decode(_ payload: UnsafeRawBufferPointer) throws -> [Int16]

    /// Packet-loss concealment: synthesizes one lost frame (as long as the last decoded packet,
    /// 960 samples by default) from the decoder's history.
    func conceal() -> [Int16]

    /// Recovers the frame *before* `nextPayload` from the forward-error-correction data inside
    /// `nextPayload` (Opus in-band FEC). Codecs without FEC, or a packet carrying none,
    /// fall back to `conceal()`. Call `decode(nextPayload)` afterwards as usual.
    func decodeFEC(from nextPayload: UnsafeRawBufferPointer) -> [Int16]

    /// `decode(_:)` into `output` (room for 120 ms, 5 760 samples, is always enough); returns the
    /// number of samples written. The playout path uses these to decode without allocating.
    func decode(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int
    /// `conceal()` into `output`; returns the number of samples written.
    func conceal(into output: UnsafeMutableBufferPointer<Int16>) -> Int
    /// `decodeFEC(from:)` into `output`; returns the number of samples written.
    func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) -> Int
}

extension AudioEncoder {
    /// Copies `encode(_:)`'s array (for encoders without an allocation-free path).
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        let payload = try encode(pcm)
        guard payload.count <= output.count else {
            throw CodecError.invalidConfiguration("payload of \(payload.count) bytes exceeds the \(output.count)-byte buffer")
        }
        output.copyBytes(from: payload)
        return payload.count
    }

    /// Encodes one frame held in an array (see `encode(_:)`).
    public func encode(_ pcm: [Int16]) throws -> [UInt8] {
        try pcm.withUnsafeBufferPointer { try encode($0) }
    }
}

extension AudioDecoder {
    /// Copies `decode(_:)`'s array (for decoders without an allocation-free path).
    public func decode(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        Self.copy(try decode(payload), into: output)
    }

    /// Copies `conceal()`'s array.
    public func conceal(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        Self.copy(conceal(), into: output)
    }

    /// Copies `decodeFEC(from:)`'s array.
    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        Self.copy(decodeFEC(from: nextPayload), into: output)
    }

    private static func copy(_ samples: [Int16], into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let count = min(samples.count, output.count)
        _ = UnsafeMutableBufferPointer(rebasing: output[0..<count]).update(fromContentsOf: samples[0..<count])
        return count
    }

    /// Decodes a payload held in any contiguous byte container (`[UInt8]`, `ArraySlice<UInt8>`, `Data`).
    public func decode(_ payload: some ContiguousBytes) throws -> [Int16] {
        try payload.withUnsafeBytes { try decode($0) }
    }

    /// FEC recovery from a payload held in any contiguous byte container (see `decodeFEC(from:)`).
    public func decodeFEC(from nextPayload: some ContiguousBytes) -> [Int16] {
        nextPayload.withUnsafeBytes { decodeFEC(from: $0) }
    }
}
