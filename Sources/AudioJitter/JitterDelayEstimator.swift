/// A forgetting histogram of packets' relative delays with a quantile read-out: the delay
/// that `quantile` of recent packets did not exceed.
///
/// Buckets are 1 ms wide up to the configured maximum plus one overflow bucket. Forgetting is
/// applied lazily: each new sample weighs 1/forgetFactor times the previous one, and the
/// weights are renormalized before they overflow, so a sample costs O(1) and a read-out one
/// pass over the buckets. No allocation after creation.
struct JitterDelayEstimator: Sendable {
    static let bucketWidth = 0.001

    private var weights: [Double]
    private var total = 0.0
    private var increment = 1.0
    private let growth: Double

    init(maximumDelay: Double, forgetFactor: Double) {
        weights = Array(repeating: 0, count: Int((maximumDelay / Self.bucketWidth).rounded(.up)) + 2)
        growth = 1 / forgetFactor
    }

    mutating func record(_ relativeDelay: Double) {
        guard relativeDelay.isFinite else { return }
        let bucket = relativeDelay <= 0 ? 0 : min(weights.count - 1, Int(relativeDelay / Self.bucketWidth))
        increment *= growth
        weights[bucket] += increment
        total += increment
        if increment > 1e100 { renormalize() }
    }

    /// The smallest bucket bound below which `quantile` of the weight lies, in seconds; 0 with
    /// no samples. Delays under 1 ms count as none (timer noise).
    func delay(atQuantile quantile: Double) -> Double {
        guard total > 0 else { return 0 }
        let threshold = quantile * total
        var cumulative = 0.0
        for (bucket, weight) in weights.enumerated() {
            cumulative += weight
            if cumulative >= threshold * (1 - 1e-12) {
                return bucket == 0 ? 0 : Double(bucket + 1) * Self.bucketWidth
            }
        }
        return Double(weights.count) * Self.bucketWidth
    }

    private mutating func renormalize() {
        let scale = 1 / increment
        total = 0
        for index in weights.indices {
            weights[index] *= scale
            total += weights[index]
        }
        increment = 1
    }
}
