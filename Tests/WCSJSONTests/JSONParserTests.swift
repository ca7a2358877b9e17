import FoundationEssentials
import Testing
import WCSJSON

/// `JSONValue.parse` (JSONParser) against what it did before (JSONDecoder through Codable): the
/// same value, or an error, for real messages, hand-picked edge cases and random and broken text.
@Suite struct JSONParserTests {
    /// Every server frame recorded from the emulator and every control request of the fuzz corpora.
    @Test func realMessagesParseAsBefore() throws {
        var count = 0
        for (corpus, skip) in [("wcs-message", 1), ("control-request", 0), ("push-payload", 0)] {
            for (name, bytes) in try JSONReference.corpus(corpus) {
                for line in Array(bytes.dropFirst(skip)).split(separator: UInt8(ascii: "\n")).map(Array.init) {
                    #expect(JSONReference.parsedNow(line) == JSONReference.parse(line), "\(corpus)/\(name)")
                    count += 1
                }
            }
        }
        #expect(count >= 40)
    }

    @Test(arguments: [
        // values
        "1", "-0", "0.0", "1.0", "1E+2", "1e0001", "0e0", "-1.5e-3", "12345678901234567890", "9007199254740993",
        "-9223372036854775809", "123456789012345", "1234567890123456", "0.1000000000000000055511151231257827",
        "1e308", "1.7976931348623158e308", "1e-310", "4.9e-324", "3e-324", "0e-400", "0e400", "0.0e-999",
        "true", "false", "null", "\"\"", "\"é\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\ud83d\\ude00\"", "\"\\u0000\"",
        "\"\\/\"", "\"\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\u{7f}\"", "[]", "[ ]", "{ }", "[\n]", "[[[]]]", "{\"\":1}",
        "{\"a\":[1,{\"b\":null}]}", "[\"a\" , 1 ]", "\r\n[1]\r\n", " [1]", "[1] ", "{\"a\":1}  \n",
        // what JSONDecoder let through: trailing commas, the first of repeated keys, a UTF-8 BOM
        "[1,]", "{\"a\":1,}", "{\"a\":[1,],}", "{\"a\":1 , }", "{\"a\":1,\"a\":2}", "{\"é\":1,\"e\u{301}\":2}", "\u{FEFF}[1]",
        // errors
        "", " ", "-", "01", "-01", "1.", ".5", "+1", "1e", "1e+", "[-]", "tru", "nul", "[truex]", "[nullx]", "NaN",
        "Infinity", "1e400", "-1e400", "1e-400", "2e-324", "2e308", "1.7976931348623159e308", "\"\\ud800\"",
        "\"\\ud800x\"", "\"\\udc00\"", "\"\\ud83d\\u0041\"", "\"\\uDFFF\\uD800\"", "\"\\u12\"", "\"\\x\"", "\"\t\"",
        "\"\u{1}\"", "\"abc", "[1]x", "[1,]]", "[,]", "[1,,2]", "{,}", "{\"a\":1,,\"b\":2}", "[1 2]", "{\"a\" 1}",
        "{1:2}", "\"a\"\"b\"", "[1\u{0b}]", "[1", "{\"a\":1", "{\"a\"", "[1]\u{0}",
    ])
    func edgeCasesAsBefore(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(JSONReference.parsedNow(bytes) == JSONReference.parse(bytes))
    }

    @Test func invalidUTF8AndNestingAsBefore() {
        var inputs: [[UInt8]] = [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
                                 [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0xEF, 0xBB, 0xBF, 0x5B, 0x31, 0x5D], [0xEF, 0xBB]]
        // (The old decoder takes seconds for an object nested 512 deep: one of each is enough.)
        for depth in [512, 513, 10_000] {
            inputs.append(Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8))
        }
        inputs.append(Array(String(repeating: "{\"a\":", count: 513).utf8) + [UInt8(ascii: "1")] + Array(String(repeating: "}", count: 513).utf8))
        inputs.append(Array(String(repeating: "[{\"a\":", count: 257).utf8) + [UInt8(ascii: "1")] + Array(String(repeating: "}]", count: 257).utf8))
        for bytes in inputs {
            #expect(JSONReference.parsedNow(bytes) == JSONReference.parse(bytes), "\(bytes.prefix(8))")
        }
        let mixed = Array(String(repeating: "[{\"a\":", count: 256).utf8) + [UInt8(ascii: "1")] + Array(String(repeating: "}]", count: 256).utf8)
        #expect(JSONReference.parsedNow(mixed) != nil)  // 512 levels of both kinds (JSONDecoder takes seconds here)
        #expect(JSONReference.parsedNow(Array("\"\u{FFFF}😀\u{10FFFF}\"".utf8)) == .string("\u{FFFF}😀\u{10FFFF}"))
    }

    /// Random values written by the old encoder, then broken a byte or three at a time: the same
    /// value or the same refusal, input by input (seeded: a failure names its seed).
    @Test(arguments: 0..<4)
    func randomAndBrokenTextAsBefore(_ seed: UInt64) {
        var random = SeededGenerator(state: seed)
        for _ in 0..<400 {
            let text = Array(JSONReference.serialized(RandomJSON.value(&random)).utf8)
            #expect(JSONReference.parsedNow(text) == JSONReference.parse(text), "seed \(seed): \(String(decoding: text, as: UTF8.self))")
            for _ in 0..<4 {
                let broken = RandomJSON.mutated(text, &random)
                #expect(JSONReference.parsedNow(broken) == JSONReference.parse(broken),
                        "seed \(seed): \(String(decoding: broken, as: UTF8.self).debugDescription)")
            }
        }
    }

    @Test func errorsSayWhatAndWhere() {
        func message(_ text: String) -> String {
            do {
                _ = try JSONValue.parse(text)
                return "parsed"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("{\"message\":") == "malformed JSON: unexpected end of text at byte 11")
        #expect(message("[1]x") == "malformed JSON: unexpected text after the value at byte 3")
        #expect(message("[01]") == "malformed JSON: invalid number (leading zero) at byte 2")
        #expect(message("\"a\u{1}\"") == "malformed JSON: control character in a string at byte 2")
        #expect(message("\"\\ud800\"") == "malformed JSON: unpaired UTF-16 surrogate in a string at byte 7")
        #expect(message("1e400") == "malformed JSON: number out of range at byte 5")
        #expect(message("{\"a\" 1}") == "malformed JSON: expected ':' after a member name at byte 5")
        #expect(message(String(repeating: "[", count: 513)) == "malformed JSON: nested deeper than 512 levels at byte 512")
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data([0x22, 0xFF, 0x22])) }
    }
}
