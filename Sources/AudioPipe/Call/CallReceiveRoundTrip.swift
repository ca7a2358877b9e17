/// The round-trip time from the peer's RTCP report blocks when their arrival is only known to lie
/// in a window: read at the media clock's drain, a report came in some time after the drain
/// before (up to 20 ms earlier), so `arrival − LSR − DLSR` with the read time reads up to 20 ms
/// high (a loopback call showed 19 ms).
///
/// Each report bounds the RTT: at least the value at the window's start, at most the value at the
/// read time. The RTT changes slowly and the reports come at random moments against our ticks
/// (RTCP intervals are randomised), so the bounds of the last `window` reports together pin it
/// down: the estimate is the middle of their intersection, which narrows with every report (to
/// a few ms after about five). Bounds that no longer intersect mean the path changed: the older
/// ones are dropped. A precisely stamped report (the loop path) is its own exact bound.
///
/// Runs where RTCP is received (the media clock thread), under `CallReceiveState`'s lock; a value.
struct CallReceiveRoundTrip {
    /// Reports whose bounds are combined.
    static let window = 8

    private var bounds: [(lower: Double, upper: Double)] = []

    /// The estimate after none yet.
    private(set) var seconds: Double?

    /// Takes one report's bounds (seconds; `lower` nil when the arrival is exact) and returns the
    /// new estimate.
    @discardableResult
    mutating func record(lower: Double?, upper: Double) -> Double {
        let bound = (lower: min(lower ?? upper, upper), upper: upper)
        bounds.append(bound)
        if bounds.count > Self.window { bounds.removeFirst(bounds.count - Self.window) }
        var low = bounds.map(\.lower).max() ?? bound.lower
        var high = bounds.map(\.upper).min() ?? bound.upper
        if low > high {
            bounds = [bound]
            (low, high) = (bound.lower, bound.upper)
        }
        let estimate = max(0, (low + high) / 2)
        seconds = estimate
        return estimate
    }
}
