/// A configuration problem, worded for the person who wrote the file or the command line.
///
/// File errors start with `path:line:` (e.g. `wcs-agent.conf:12: unknown key "x" in [sip]`).
/// Messages never contain secret values (the SIP password is only ever read from a file).
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The full human-readable message.
    public let description: String

    /// Creates an error with an already formatted message.
    public init(_ description: String) { self.description = description }

    /// An error located at `file:line`.
    public static func at(_ file: String, line: Int, _ message: String) -> ConfigError {
        ConfigError("\(file):\(line): \(message)")
    }
}
