import Testing
import WCSJSON

/// The Foundation-free trimming matches Foundation's `.whitespaces` / `.whitespacesAndNewlines`.
@Suite struct StringTrimmingTests {
    @Test func spacesAndTabsOnly() {
        #expect(" \t a b \t ".trimmingSpaces() == "a b")
        #expect("\u{00A0}x\u{3000}".trimmingSpaces() == "x", "no-break and ideographic spaces are space separators")
        #expect("\nx\n".trimmingSpaces() == "\nx\n", "line breaks are not spaces")
        #expect("   ".trimmingSpaces() == "")
        #expect("".trimmingSpaces() == "")
    }

    @Test func whitespaceAndLineBreaks() {
        #expect("\r\n\t x y \n\u{2028}".trimmingWhitespace() == "x y")
        #expect(Substring("  é  ").trimmingWhitespace() == "é")
        #expect("\u{0085}".trimmingWhitespace() == "")
    }

    @Test func chosenScalars() {
        #expect("[::1]".trimming { $0 == "[" || $0 == "]" } == "::1")
        #expect("[[a]b]]".trimming { $0 == "[" || $0 == "]" } == "a]b")
        #expect("[]".trimming { $0 == "[" || $0 == "]" } == "")
        #expect("host".trimming { $0 == "[" } == "host")
    }

    @Test func numericStringsReadAsIntegersAfterTrimming() {
        #expect(JSONValue.string(" 5060 ").intValue == 5060)
    }
}
