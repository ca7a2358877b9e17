/// What the decoder should do for one 20 ms playout slot.
public enum JitterOutput: Sendable, Equatable {
    /// Decode this payload.
    case frame([UInt8])
    /// Conceal this slot. When the packet that follows the missing one is already buffered its
    /// payload is given, so an Opus decoder can rebuild the lost frame from that packet's
    /// in-band FEC (`opus_decode` with `decode_fec = 1`); otherwise run plain PLC. Also output
    /// for an underrun and when the buffer stretches to grow its delay.
    case lost(nextPayloadForFEC: [UInt8]?)
    /// Nothing is expected: the stream has not started, or a DTX/silence gap is in progress.
    /// Play silence or comfort noise.
    case silence
}

/// What `JitterBuffer.insert` did with a packet.
public enum JitterInsertResult: Sendable, Equatable {
    /// Stored for playout.
    case buffered
    /// Already buffered or already played: dropped.
    case duplicate
    /// Its playout slot has passed, or it is an unconfirmed jump far outside the sequence
    /// window: dropped.
    case late
}
