import WCSSession

/// `metrics`: the Prometheus text exposition, the same text `[metrics] listen` serves over HTTP.
struct MetricsResult: Codable, Sendable, Equatable {
    /// The exposition (text format 0.0.4).
    var text: String
}

extension ControlVerbs {
    static let metrics = ControlVerb<NoArguments, MetricsResult>(
        name: "metrics", usage: "[--json]",
        summary: "print Prometheus metrics: state, resumes, relogins, last pong,\nwake latency, calls by end result, per-call loss, jitter, RTT",
        parse: CLIArguments.none,
        handle: { _, context in
            guard let collector = context.metrics else { throw ControlFailure(.internalError, "metrics: this daemon keeps no metrics") }
            return MetricsResult(text: try await AgentMetrics.scrape(context.agent, collector: collector))
        },
        render: { result in
            // print() adds the final newline the exposition already ends with.
            result.text.hasSuffix("\n") ? String(result.text.dropLast()) : result.text
        })
}
