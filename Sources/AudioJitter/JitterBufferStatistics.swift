/// A snapshot of a jitter buffer's state and counters.
///
/// Every inserted packet ends up in exactly one of `played`, `late`, `duplicates`,
/// `overflowDropped`, `skipped`, `flushed` or `bufferedPackets`.
public struct JitterBufferStatistics: Sendable, Equatable {
    /// The delay the buffer aims for, in milliseconds (bounded by the configuration).
    public var targetDelayMs: Double
    /// Audio buffered ahead of the playout point, in milliseconds.
    public var bufferedMs: Double
    /// The current playout delay relative to the fastest observed transit, in milliseconds
    /// (nil before playout starts).
    public var currentDelayMs: Double?
    /// Packets held right now.
    public var bufferedPackets: Int
    /// Packets given to `insert`.
    public var received: Int = 0
    /// Frames output with `.frame`.
    public var played: Int = 0
    /// Sequence numbers whose playout slot passed without the packet.
    public var lost: Int = 0
    /// Slots output as `.lost` (losses, underruns and delay stretching).
    public var concealed: Int = 0
    /// `.lost` slots inserted only to grow the delay (a subset of `concealed`).
    public var stretched: Int = 0
    /// Slots output as `.silence`.
    public var silence: Int = 0
    /// Packets dropped because their slot had passed (including old packets skipped when a
    /// talkspurt is re-anchored, and unconfirmed sequence jumps).
    public var late: Int = 0
    /// Packets dropped as duplicates.
    public var duplicates: Int = 0
    /// Packets dropped because the buffer was full.
    public var overflowDropped: Int = 0
    /// Frames dropped during speech to shrink the delay.
    public var skipped: Int = 0
    /// Packets discarded by a reset (SSRC change, sequence restart, `reset()`).
    public var flushed: Int = 0
    /// Resets so far.
    public var resets: Int = 0
}
