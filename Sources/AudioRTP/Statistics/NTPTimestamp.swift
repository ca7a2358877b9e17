import FoundationEssentials

/// A 64-bit NTP timestamp (RFC 3550 section 4): seconds since 1900-01-01 and a 32-bit
/// binary fraction. Seconds wrap in 2036 (era 1), which is harmless for RTCP because only
/// differences of the compact form are ever used.
public struct NTPTimestamp: Sendable, Hashable, Comparable {
    /// Seconds between 1900-01-01 (NTP epoch) and 1970-01-01 (Unix epoch).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    /// Whole seconds since the NTP epoch, modulo 2^32.
    public var seconds: UInt32
    /// The fractional second in units of 2^-32 s.
    public var fraction: UInt32

    /// A timestamp from its two words.
    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// A timestamp from its 64-bit form (seconds in the high word).
    public init(rawValue: UInt64) {
        self.init(seconds: UInt32(truncatingIfNeeded: rawValue >> 32), fraction: UInt32(truncatingIfNeeded: rawValue))
    }

    /// A timestamp for a Unix time in seconds. Non-finite or negative values give the Unix epoch.
    public init(unixTime: Double) {
        let clamped = unixTime.isFinite ? min(max(unixTime, 0), 8_000_000_000) : 0
        let whole = clamped.rounded(.down)
        let fraction = UInt64(((clamped - whole) * 4_294_967_296).rounded(.down))
        self.init(
            seconds: UInt32(truncatingIfNeeded: UInt64(whole) + Self.unixEpochOffset),
            fraction: UInt32(truncatingIfNeeded: min(fraction, UInt64(UInt32.max))))
    }

    /// A timestamp for a wall-clock date.
    public init(date: Date) {
        self.init(unixTime: date.timeIntervalSince1970)
    }

    /// The 64-bit form (seconds in the high word).
    public var rawValue: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// The Unix time this timestamp denotes, assuming NTP era 0 (before 2036) for seconds
    /// values at or above the Unix epoch offset and era 1 below it.
    public var unixTime: Double {
        var whole = Int64(seconds) - Int64(Self.unixEpochOffset)
        if whole < 0 { whole += 1 << 32 }
        return Double(whole) + Double(fraction) / 4_294_967_296
    }

    /// The middle 32 bits (16.16 fixed point seconds), as carried in LSR and used for RTT.
    public var compact: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// Seconds denoted by a compact (16.16) value such as DLSR or an RTT.
    public static func seconds(fromCompact compact: UInt32) -> Double { Double(compact) / 65_536 }

    /// The compact (16.16) form of a non-negative duration in seconds, saturating.
    public static func compact(fromSeconds seconds: Double) -> UInt32 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt32(min((seconds * 65_536).rounded(), Double(UInt32.max)))
    }

    /// Orders by the 64-bit value (meaningful within one NTP era).
    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Maps a monotonic clock onto NTP time: the wall clock is read once, at the reference
/// instant, and later times follow the monotonic clock, so timestamps never jump when the
/// system clock is stepped. RTT measurement only needs this clock to be self-consistent.
public struct NTPClock: Sendable {
    /// The monotonic reading (seconds) at the reference instant.
    public let referenceMonotonic: Double
    /// The Unix time (seconds) at the reference instant.
    public let referenceUnixTime: Double

    /// A clock anchored at the given instant.
    public init(referenceMonotonic: Double, referenceUnixTime: Double) {
        self.referenceMonotonic = referenceMonotonic
        self.referenceUnixTime = referenceUnixTime
    }

    /// A clock anchored now: `monotonicNow` from the caller's monotonic source (the same one
    /// later passed to `timestamp(atMonotonic:)`), the wall clock from `Date()`.
    public init(monotonicNow: Double, wallClock: Date = Date()) {
        self.init(referenceMonotonic: monotonicNow, referenceUnixTime: wallClock.timeIntervalSince1970)
    }

    /// The NTP time at monotonic time `monotonic` (seconds).
    public func timestamp(atMonotonic monotonic: Double) -> NTPTimestamp {
        NTPTimestamp(unixTime: referenceUnixTime + (monotonic - referenceMonotonic))
    }
}
