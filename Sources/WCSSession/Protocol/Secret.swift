/// A secret string (SIP password, auth token) that never prints itself.
///
/// `description`, `debugDescription` and string interpolation all render `<redacted>`, so a
/// secret cannot leak into a log line by accident; `value` must be read explicitly.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself. Read it only to put it on the wire or into the token file.
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
    /// `true` when the secret is the empty string.
    public var isEmpty: Bool { value.isEmpty }
}
