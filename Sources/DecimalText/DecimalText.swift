import Glibc

/// Numbers as text for log lines, benchmark reports and the prompt, without Foundation's
/// `String(format:)` (the daemon links FoundationEssentials only, which has no printf-style
/// formatting). Output is byte for byte what `String(format:)` printed with the same
/// conversion: `fixed` goes through libc's `vsnprintf` (`%.*f`: correctly rounded, C locale,
/// as the agent never calls `setlocale`), `zeroPadded` is `%0*d`. Pure functions; any thread.
public enum DecimalText {
    /// The most decimals `fixed` writes (more would only show the binary value's noise).
    public static let maximumDecimals = 17

    /// `value` with `decimals` digits after the point, e.g. `fixed(2.345, decimals: 1)` is `"2.3"`,
    /// `fixed(-0.04, decimals: 1)` is `"-0.0"`, `fixed(7, decimals: 0)` is `"7"`: what `%.Nf`
    /// prints. Infinities and NaN read `inf`, `-inf`, `nan`. `decimals` is clamped to
    /// 0...`maximumDecimals`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        let places = Int32(min(max(decimals, 0), maximumDecimals))
        // The longest result: sign, 309 integer digits (Double.greatestFiniteMagnitude), point,
        // 17 decimals, terminating zero.
        var buffer = [CChar](repeating: 0, count: 336)
        let written = withVaList([places, value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.*f", arguments) }
        }
        precondition(written >= 0 && Int(written) < buffer.count, "DecimalText.fixed: vsnprintf wrote \(written)")
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// `value` in decimal with zeros in front up to `width` characters (the sign counts), e.g.
    /// `zeroPadded(7, width: 2)` is `"07"`, `zeroPadded(-7, width: 3)` is `"-07"`,
    /// `zeroPadded(123, width: 2)` is `"123"`: what `%0Nd` prints.
    public static func zeroPadded<Value: BinaryInteger>(_ value: Value, width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        let zeros = max(0, width - sign.count - digits.count)
        return sign + String(repeating: "0", count: zeros) + digits
    }
}
