import Testing
import WCSJSON

/// The one escaping function for far-end text (`UntrustedText`): which scalars it escapes, how,
/// and what it leaves alone.
struct UntrustedTextTests {
    /// The display name the issue disclosed: an OSC 52 clipboard write, a screen clear and a bidi override.
    static let hostile = "Door\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{202e}gnp.exe"

    @Test func escapesTheDisclosedDisplayName() {
        let shown = UntrustedText.escaped(Self.hostile)
        #expect(shown == "Door\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\u{202e}gnp.exe")
        #expect(UntrustedText.isSafe(shown))
    }

    @Test func everyControlAndBidiScalarIsEscaped() {
        var unsafe: [Unicode.Scalar] = (0..<0x20).compactMap(Unicode.Scalar.init) + ["\u{7f}"]
        unsafe += (0x80..<0xA0).compactMap(Unicode.Scalar.init)
        unsafe += (0x202A...0x202E).compactMap(Unicode.Scalar.init) + (0x2066...0x2069).compactMap(Unicode.Scalar.init)
        unsafe += ["\u{200E}", "\u{200F}", "\u{061C}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{00AD}", "\u{E0041}"]
        for scalar in unsafe {
            #expect(UntrustedText.isUnsafe(scalar), "U+\(String(scalar.value, radix: 16))")
            let shown = UntrustedText.escaped("a\(scalar)b")
            #expect(shown.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F },
                    "U+\(String(scalar.value, radix: 16)) shown as \(shown.debugDescription)")
        }
        #expect(UntrustedText.escaped("\n\r\t") == "\\n\\r\\t")
        #expect(UntrustedText.escaped("\u{0}\u{9b}") == "\\x00\\x9b")
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in ["", "1000", "Front door <1000>", "Müller 中文 😀 👨‍👩‍👧", "مرحبا", "a\\x1b", "נ\u{200C}ו"] {
            #expect(UntrustedText.escaped(text) == text)
            #expect(UntrustedText.isSafe(text))
        }
        #expect(UntrustedText.escaped("two\nlines\u{1b}", keepingLineFeeds: true) == "two\nlines\\x1b")
        #expect("x\u{202e}y".escapedForDisplay == "x\\u{202e}y")
    }
}
