#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC`: the one monotonic clock of the process. A call uses it for packet arrival
/// (jitter buffer insert, RTP statistics), playout, RTCP timing and timeouts; the media clock for
/// its tick deadlines; the daemon for deadlines, latencies and systemd's `MONOTONIC_USEC`.
public enum MonotonicTime {
    /// The current reading in seconds.
    public static func now() -> Double {
        let time = reading()
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }

    /// The current reading in nanoseconds.
    public static func nanoseconds() -> Int {
        let time = reading()
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    private static func reading() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time
    }
}
