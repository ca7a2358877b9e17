import AudioJitter
#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` in seconds: the one clock a call uses for packet arrival (jitter buffer
/// insert, RTP statistics), playout (`JitterBuffer.pop`), RTCP timing and timeouts.
enum MonotonicTime {
    /// The current `CLOCK_MONOTONIC` reading in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
