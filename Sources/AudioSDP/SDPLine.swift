/// One `<type>=<value>` line of a session description, kept verbatim.
///
/// Equality ignores `lineNumber`, so a description that went through serialize and parse again
/// compares equal to the original.
public struct SDPLine: Sendable, Equatable, CustomStringConvertible {
    /// The one-letter type (`a`, `c`, `b`, `t`, ...), always a lowercase ASCII letter.
    public var type: Character
    /// Everything after the `=`.
    public var value: String
    /// The 1-based line number in the text it was parsed from, if any (used in error messages).
    public var lineNumber: Int?

    /// Creates a line; `type` must be a lowercase ASCII letter.
    public init(type: Character, value: String, lineNumber: Int? = nil) {
        self.type = type
        self.value = value
        self.lineNumber = lineNumber
    }

    /// An `a=<name>[:<value>]` line.
    public static func attribute(_ name: String, _ value: String? = nil) -> SDPLine {
        SDPLine(type: "a", value: value.map { "\(name):\($0)" } ?? name)
    }

    /// The attribute this line carries, or `nil` if it is not an `a=` line.
    public var attribute: SDPAttribute? {
        type == "a" ? SDPAttribute(attributeLineValue: value) : nil
    }

    /// The line as written, without a line ending: `a=rtcp-mux`.
    public var description: String { "\(type)=\(value)" }

    /// Equality of type and value; the line number is provenance, not content.
    public static func == (lhs: SDPLine, rhs: SDPLine) -> Bool {
        lhs.type == rhs.type && lhs.value == rhs.value
    }

    /// An error about this line with its line number.
    func error(_ reason: String) -> SDPError {
        SDPError(line: lineNumber, text: description, reason: reason)
    }
}

/// An `a=` attribute split into name and optional value (`a=rtpmap:0 PCMU/8000` has name
/// `rtpmap` and value `0 PCMU/8000`; the flag `a=rtcp-mux` has no value).
public struct SDPAttribute: Sendable, Equatable {
    /// The attribute name (case as written).
    public var name: String
    /// The text after the first `:`, or `nil` for a flag attribute.
    public var value: String?

    /// Creates an attribute.
    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Splits the text after `a=` at its first colon; spaces around the name are dropped
    /// (`a=sendrecv ` from a lax peer is still the sendrecv flag).
    public init(attributeLineValue text: String) {
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon].trimmingSpaces()
            value = String(text[text.index(after: colon)...])
        } else {
            name = text.trimmingSpaces()
            value = nil
        }
    }
}

/// Something that holds SDP lines (the session level or one media section), with attribute look-ups.
public protocol SDPLineContainer {
    /// The lines in order, excluding the section's own leading line(s).
    var lines: [SDPLine] { get }
}

extension SDPLineContainer {
    /// All `a=` attributes in order.
    public var attributes: [SDPAttribute] { lines.compactMap(\.attribute) }

    /// The `a=` lines named `name` (case-insensitive), in order.
    public func attributeLines(named name: String) -> [SDPLine] {
        lines.filter { $0.type == "a" && $0.attribute?.name.lowercased() == name.lowercased() }
    }

    /// The values of every `a=<name>:<value>` attribute named `name`; flags give "".
    public func attributeValues(named name: String) -> [String] {
        attributeLines(named: name).map { $0.attribute?.value ?? "" }
    }

    /// The value of the first attribute named `name` ("" for a flag), or `nil` if absent.
    public func attributeValue(named name: String) -> String? {
        attributeValues(named: name).first
    }

    /// Whether an attribute named `name` is present.
    public func hasAttribute(named name: String) -> Bool {
        !attributeLines(named: name).isEmpty
    }

    /// The first line of the given type (for example `c`).
    public func firstLine(ofType type: Character) -> SDPLine? {
        lines.first { $0.type == type }
    }

    /// The parsed `c=` line, or `nil` if absent or unreadable.
    public var connection: SDPConnection? {
        firstLine(ofType: "c").flatMap { try? SDPConnection(line: $0) }
    }
}
