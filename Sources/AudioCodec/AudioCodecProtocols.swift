import Foundation

/// Encodes 20 ms frames of 48 kHz mono 16-bit audio into RTP payloads.
///
/// Implementations are thread-safe (each guards its state with a lock), but a stream is
/// stateful: feed frames of one stream, in order, from one producer.
public protocol AudioEncoder: AnyObject, Sendable {
    /// The RTP clock rate of the produced payloads (48 000 for Opus, 8 000 for G.711).
    /// The RTP timestamp advances by `clockRate / 50` per 20 ms frame.
    var clockRate: Int { get }

    /// Encodes one frame of exactly `AudioFormat.samplesPerFrame` (960) samples.
    /// Throws `CodecError.wrongFrameSize` for any other length.
    func encode(_ pcm: UnsafeBufferPointer<Int16>) throws -> [UInt8]

    /// True when the last encoded frame was a DTX frame (payload of at most 2 bytes) that a
    /// sender may choose not to transmit. Always false for codecs without DTX.
    var lastFrameWasDTX: Bool { get }
}

/// Decodes RTP payloads into 48 kHz mono 16-bit samples, with loss concealment.
///
/// Implementations are thread-safe (each guards its state with a lock); decode one stream in order.
public protocol AudioDecoder: AnyObject, Sendable {
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
}

extension AudioEncoder {
    /// Encodes one frame held in an array (see `encode(_:)`).
    public func encode(_ pcm: [Int16]) throws -> [UInt8] {
        try pcm.withUnsafeBufferPointer { try encode($0) }
    }
}

extension AudioDecoder {
    /// Decodes a payload held in any contiguous byte container (`[UInt8]`, `ArraySlice<UInt8>`, `Data`).
    public func decode(_ payload: some ContiguousBytes) throws -> [Int16] {
        try payload.withUnsafeBytes { try decode($0) }
    }

    /// FEC recovery from a payload held in any contiguous byte container (see `decodeFEC(from:)`).
    public func decodeFEC(from nextPayload: some ContiguousBytes) -> [Int16] {
        nextPayload.withUnsafeBytes { decodeFEC(from: $0) }
    }
}
