import WCSJSON

/// The human `calls` table: one line per call (pure function of the `calls` result). `STATE` is
/// our call state (`CallState`), `SERVER` the server's call status.
public enum CallTableFormatter {
    /// The table, or `no calls`.
    public static func table(_ calls: [JSONValue]) -> String {
        guard !calls.isEmpty else { return "no calls" }
        var lines = ["CALL                                  DIR  STATE            SERVER       PARTY                     TIME    FLAGS        MEDIA"]
        for call in calls {
            let direction = call["direction"]?.stringValue == "outgoing" ? "out" : "in"
            let party = call["direction"]?.stringValue == "outgoing" ? (call["callee"]?.stringValue ?? "?") : StatusFormatter.party(call)
            let seconds = call["duration_seconds"]?.stringValue.flatMap(Double.init).map { Int($0) }.map { "\($0 / 60):\($0 % 60 < 10 ? "0" : "")\($0 % 60)" } ?? "-"
            var flags: [String] = []
            if call["held"]?.boolValue == true { flags.append("held") }
            if call["muted"]?.boolValue == true { flags.append("muted") }
            var media = "-"
            if let stats = call["stats"] {
                media = "\(stats["codec"]?.stringValue ?? "?") tx \(stats["packets_sent"]?.intValue ?? 0) rx \(stats["packets_received"]?.intValue ?? 0) lost \(stats["packets_lost"]?.intValue ?? 0) jitter \(stats["jitter_ms"]?.stringValue ?? "?") ms"
            }
            lines.append([pad(call["call_id"]?.stringValue ?? "?", 37), pad(direction, 4), pad(call["state"]?.stringValue ?? "-", 16),
                          pad(call["status"]?.stringValue ?? "?", 12),
                          pad(party, 25), pad(seconds, 7), pad(flags.isEmpty ? "-" : flags.joined(separator: ","), 12), media].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// `text` padded with spaces to `width` columns (never cut).
    public static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
