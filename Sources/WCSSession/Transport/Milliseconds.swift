/// One-decimal figures for log lines (`12.3`), without Foundation's `String(format:)`, which
/// WCSSession no longer imports (it builds on FoundationEssentials). A pure function; any thread.
enum Milliseconds {
    /// `value` rounded to one decimal, e.g. `0.0`, `12.3`, `-4.5`.
    static func text(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = Int64((abs(value) * 10).rounded())
        return "\(value < 0 && tenths != 0 ? "-" : "")\(tenths / 10).\(tenths % 10)"
    }
}
