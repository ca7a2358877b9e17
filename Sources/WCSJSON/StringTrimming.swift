/// Whitespace trimming without Foundation (FoundationEssentials has no `CharacterSet`), with
/// Foundation's two sets: `.whitespaces` (Unicode space separators and tab) and
/// `.whitespacesAndNewlines` (Unicode White_Space). Pure functions, any thread.
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (Foundation's `.whitespaces`).
    public func trimmingSpaces() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without leading and trailing whitespace and line breaks (Foundation's
    /// `.whitespacesAndNewlines`).
    public func trimmingWhitespace() -> String {
        trimming { $0.properties.isWhitespace }
    }

    /// The text without the leading and trailing scalars `strip` accepts (e.g. the brackets
    /// around an IPv6 host: `trimming { $0 == "[" || $0 == "]" }`).
    public func trimming(_ strip: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !strip($0) }),
              let last = scalars.lastIndex(where: { !strip($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
