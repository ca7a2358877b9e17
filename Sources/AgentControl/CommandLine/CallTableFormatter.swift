import WCSJSON

/// The human `calls` table: one line per call (pure function of the `calls` result). `STATE` is
/// our call state (`CallState`), `SERVER` the server's call status. Every field the server or the far
/// end gave (call id, status, party, codec) is escaped (`UntrustedText`): one row per call, nothing raw.
public enum CallTableFormatter {
    /// The table, or `no calls`.
    public static func table(_ calls: [JSONValue]) -> String {
        guard !calls.isEmpty else { return "no calls" }
        var lines = ["CALL                                  DIR  STATE            SERVER       PARTY                     TIME    FLAGS        MEDIA"]
        for call in calls {
            let direction = call["direction"]?.stringValue == "outgoing" ? "out" : "in"
            let party = call["direction"]?.stringValue == "outgoing" ? StatusFormatter.field(call["callee"]) : StatusFormatter.party(call)
            let seconds = call["duration_seconds"]?.stringValue.flatMap(Double.init).map { Int($0) }.map { "\($0 / 60):\($0 % 60 < 10 ? "0" : "")\($0 % 60)" } ?? "-"
            var flags: [String] = []
            if call["held"]?.boolValue == true { flags.append("held") }
            if call["muted"]?.boolValue == true { flags.append("muted") }
            var media = "-"
            if let stats = call["stats"] {
                media = "\(StatusFormatter.field(stats["codec"])) tx \(stats["packets_sent"]?.intValue ?? 0) rx \(stats["packets_received"]?.intValue ?? 0) lost \(stats["packets_lost"]?.intValue ?? 0) jitter \(stats["jitter_ms"]?.stringValue ?? "?") ms"
            }
            lines.append([pad(StatusFormatter.field(call["call_id"]), 37), pad(direction, 4), pad(StatusFormatter.field(call["state"], "-"), 16),
                          pad(StatusFormatter.field(call["status"]), 12),
                          pad(party, 25), pad(seconds, 7), pad(flags.isEmpty ? "-" : flags.joined(separator: ","), 12), media].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// `text` padded with spaces to `width` columns (never cut).
    public static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
