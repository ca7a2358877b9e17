import WCSJSON

/// `metrics`: the Prometheus text exposition, the same text `[metrics] listen` serves over HTTP.
public struct MetricsResult: Codable, Sendable, Equatable {
    /// The exposition (text format 0.0.4).
    public var text: String

    /// Creates a result.
    public init(text: String) { self.text = text }
}

extension ControlVerbs {
    /// Prints the Prometheus metrics.
    public static let metrics = ControlVerb<NoArguments, MetricsResult>(
        name: "metrics", usage: "[--json]",
        summary: "print Prometheus metrics: state, resumes, relogins, last pong,\nwake latency, calls by end result, per-call loss, jitter, RTT",
        parse: CLIArguments.none,
        render: { result in
            // print() adds the final newline the exposition already ends with.
            result.text.hasSuffix("\n") ? String(result.text.dropLast()) : result.text
        })
}
