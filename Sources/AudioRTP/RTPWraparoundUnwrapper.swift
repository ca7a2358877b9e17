/// Turns a wrapping RTP counter (16-bit sequence number or 32-bit timestamp) into a
/// monotonic 64-bit value.
///
/// Each value is placed at the distance from the previously unwrapped value that is smallest
/// modulo 2^bitWidth, so reordering and wraparound both unwrap correctly as long as
/// consecutive values are less than half the counter range apart.
public struct RTPWraparoundUnwrapper<Value: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    /// The most recently unwrapped value, or nil before the first.
    public private(set) var last: Int64?

    /// An unwrapper with no history; the first value unwraps to itself.
    public init() {}

    /// Unwraps `value` and remembers it as the reference for the next one.
    public mutating func unwrap(_ value: Value) -> Int64 {
        let result = peek(value)
        last = result
        return result
    }

    /// Unwraps `value` without changing the reference.
    public func peek(_ value: Value) -> Int64 {
        guard let last else { return Int64(value) }
        let modulus = Int64(1) << Value.bitWidth
        let forward = Int64(value &- Value(truncatingIfNeeded: last))
        return last + (forward >= modulus / 2 ? forward - modulus : forward)
    }

    /// Forgets the history.
    public mutating func reset() { last = nil }
}

/// Unwraps 16-bit RTP sequence numbers.
public typealias RTPSequenceUnwrapper = RTPWraparoundUnwrapper<UInt16>
/// Unwraps 32-bit RTP timestamps.
public typealias RTPTimestampUnwrapper = RTPWraparoundUnwrapper<UInt32>
