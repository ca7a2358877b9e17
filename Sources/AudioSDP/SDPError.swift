/// A malformed session description: where it went wrong and why.
public struct SDPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line number in the parsed text, or `nil` when the text came from elsewhere
    /// (a candidate string from trickle signaling, a line built in code).
    public let line: Int?
    /// The offending line, shortened to at most 120 characters.
    public let text: String
    /// A human-readable reason, for example "m= port is not a number".
    public let reason: String

    /// Creates an error for `text` (shortened for display) at `line`.
    public init(line: Int?, text: String, reason: String) {
        self.line = line
        self.text = text.count > 120 ? String(text.prefix(117)) + "..." : text
        self.reason = reason
    }

    /// "SDP line 7: m= port is not a number: m=audio x RTP/AVP 0".
    public var description: String {
        let location = line.map { "SDP line \($0)" } ?? "SDP"
        return text.isEmpty ? "\(location): \(reason)" : "\(location): \(reason): \(text)"
    }
}
