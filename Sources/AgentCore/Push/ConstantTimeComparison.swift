/// Compares secrets without an early exit, so the time taken does not reveal how many leading
/// bytes matched.
enum ConstantTimeComparison {
    /// True when `a` and `b` hold the same bytes. Runs over the longer input whatever the content.
    static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a), right = Array(b)
        let length = max(left.count, right.count)
        var difference = UInt64(left.count ^ right.count)
        for i in 0..<length {
            let x = i < left.count ? left[i] : 0
            let y = i < right.count ? right[i] : 0
            difference |= UInt64(x ^ y)
        }
        return difference == 0
    }
}
