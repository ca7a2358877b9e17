/// Text from the far end or the server (display names, numbers, call ids, server info strings,
/// headers, payloads) made safe to show: the one escaping function of the project. Every surface
/// that shows such text to a person (terminal output, tables, the prompt, log lines) passes it
/// through `escaped`; JSON output escapes the same scalars as `\uXXXX` (`JSONWriter`), and file
/// names never carry it at all (`SafeFileName` in AgentCore).
///
/// Unsafe scalars: the C0 controls (U+0000-001F, with ESC, BEL, BS, CR, LF), DEL, the C1 controls
/// (U+0080-009F, with the 8-bit CSI and OSC), format characters (general category Cf: the bidi
/// embeddings, overrides and isolates U+202A-202E and U+2066-2069, the marks U+200E/200F/061C,
/// the BOM, invisible operators, tag characters) and the line and paragraph separators U+2028/2029.
/// The zero-width (non-)joiners U+200C/200D stay: scripts and emoji need them and they move nothing.
/// Each is written as a visible escape: `\n`, `\r`, `\t`, `\xHH` below U+0100, `\u{HHHH}` above.
/// A backslash is left as it is (the escapes are for people; the raw value is in `--json`).
///
/// Pure functions on values: any thread. FoundationEssentials-free, so the lean front uses it too.
public enum UntrustedText {
    /// Whether `scalar` must never reach a terminal, a log line or a file name as it is.
    @inlinable
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || value == 0x7F { return true }
        if value < 0x7F { return false }
        if value < 0xA0 { return true }
        if value == 0x200C || value == 0x200D { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: return true
        default: return false
        }
    }

    /// `text` with every unsafe scalar escaped (see the type). With `keepingLineFeeds`, a line feed
    /// stays (for multi-line output whose fields were escaped already).
    public static func escaped(_ text: some StringProtocol, keepingLineFeeds: Bool = false) -> String {
        // Fast path: printable ASCII (and line feeds if kept) needs nothing.
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || (keepingLineFeeds && $0 == 0x0A) }) { return String(text) }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar), !(keepingLineFeeds && scalar == "\n") else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(out)
    }

    /// Whether `text` holds no unsafe scalar (it would be shown as it is).
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy { !isUnsafe($0) }
    }

    /// The visible escape of one unsafe scalar.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            let hex = String(scalar.value, radix: 16)
            if scalar.value < 0x100 { return "\\x" + (hex.count < 2 ? "0" : "") + hex }
            return "\\u{" + hex + "}"
        }
    }
}

extension StringProtocol {
    /// This text with every control, bidi or other unsafe scalar escaped (`UntrustedText.escaped`).
    public var escapedForDisplay: String { UntrustedText.escaped(self) }
}
