/// A Prometheus histogram of wake latencies: seconds from the start of a login or resume
/// attempt (`state: connecting`) to the session being online. Cumulative buckets, as the
/// exposition format wants them.
///
/// A value inside `MetricsCollector`'s lock; no thread of its own.
struct WakeLatencyHistogram: Sendable, Equatable {
    /// Upper bounds in seconds (the `le` labels), ascending; `+Inf` is implied.
    static let bounds: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    /// Observations at or below each bound (not cumulative; `cumulative` sums them).
    private(set) var counts = [Int](repeating: 0, count: bounds.count)
    /// All observations, including those above the last bound.
    private(set) var count = 0
    /// Sum of the observed seconds.
    private(set) var sum = 0.0

    /// Records one wake of `seconds`.
    mutating func observe(_ seconds: Double) {
        count += 1
        sum += seconds
        if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
    }

    /// `(le, cumulative count)` for each bound, then `+Inf` with the total.
    var cumulative: [(bound: String, count: Int)] {
        var running = 0
        var out: [(bound: String, count: Int)] = []
        for (bound, n) in zip(Self.bounds, counts) {
            running += n
            out.append((PrometheusText.format(bound), running))
        }
        out.append(("+Inf", count))
        return out
    }
}
