import FoundationEssentials

/// Writes the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` line
/// per metric family, then its samples, `\n`-terminated. Label values are escaped (`\\`, `\"`,
/// `\n`); values print as integers when whole, `NaN` and `+Inf`/`-Inf` as Prometheus spells them.
///
/// A value built by `AgentMetrics` on whichever task renders a scrape; no state beyond the text.
struct PrometheusText {
    /// The metric types of the exposition format that the agent uses.
    enum MetricType: String {
        case counter, gauge, histogram
    }

    /// The `Content-Type` of the exposition.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition so far.
    private(set) var text = ""

    /// Starts a metric family. Every sample of the family must follow before the next family.
    mutating func family(_ name: String, _ type: MetricType, _ help: String) {
        var escapedHelp = ""
        for scalar in help.unicodeScalars {  // per scalar: the LF of a CRLF is escaped too
            switch scalar {
            case "\\": escapedHelp += "\\\\"
            case "\n": escapedHelp += "\\n"
            default: escapedHelp.unicodeScalars.append(scalar)
            }
        }
        text += "# HELP \(name) \(escapedHelp)\n# TYPE \(name) \(type.rawValue)\n"
    }

    /// One sample: `name{label="value",...} value`.
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        sample(name, labels: Array(labels), value)
    }

    /// One sample with labels given as an array (in that order).
    mutating func sample(_ name: String, labels: [(key: String, value: String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    /// A label value with `\`, `"` and newlines escaped. Label values quote the server's call ids:
    /// control and bidi characters are first written as `UntrustedText` escapes (whose backslash is
    /// then escaped as any other), so neither a scraper nor `wcs-agent metrics` on a terminal gets them raw.
    static func escape(_ value: String) -> String {
        var out = ""
        for character in UntrustedText.escaped(value, keepingLineFeeds: true) {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A sample value as the format spells it.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
