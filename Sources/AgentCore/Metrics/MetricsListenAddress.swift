import FoundationEssentials

/// `[metrics] listen`: where the metrics endpoint listens. A bare port binds loopback only
/// (`9464` is `127.0.0.1:9464`); otherwise a numeric `IPV4:PORT` or `[IPV6]:PORT`, as the push
/// webhook takes. Pure parsing, called by `ConfigLoader`.
enum MetricsListenAddress {
    /// The loopback host a bare port binds.
    static let defaultHost = "127.0.0.1"

    /// Parses the setting; throws `ConfigError` naming the expected forms.
    static func parse(_ text: String) throws(ConfigError) -> PushListenAddress {
        let trimmed = text.trimmingSpaces()
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            return try PushListenAddress(parsing: "\(defaultHost):\(trimmed)", what: "metrics listen address")
        }
        return try PushListenAddress(parsing: trimmed, what: "metrics listen address")
    }
}
