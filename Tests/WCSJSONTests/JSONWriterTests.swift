import Testing
import WCSJSON

/// `JSONValue.serialized()` (JSONWriter) against what it wrote before (JSONEncoder, sorted keys,
/// slashes unescaped): byte for byte, for real messages and random values.
@Suite struct JSONWriterTests {
    @Test func realMessagesSerializeAsBefore() throws {
        for (corpus, skip) in [("wcs-message", 1), ("control-request", 0), ("push-payload", 0)] {
            for (name, bytes) in try JSONReference.corpus(corpus) {
                for line in Array(bytes.dropFirst(skip)).split(separator: UInt8(ascii: "\n")).map(Array.init) {
                    guard let value = JSONReference.parse(line) else { continue }
                    #expect(value.serialized() == JSONReference.serialized(value), "\(corpus)/\(name)")
                    #expect(try JSONValue.parse(value.serialized()) == value)
                }
            }
        }
    }

    @Test(arguments: 0..<4)
    func randomValuesSerializeAsBefore(_ seed: UInt64) throws {
        var random = SeededGenerator(state: seed + 100)
        for _ in 0..<500 {
            let value = RandomJSON.value(&random)
            let text = value.serialized()
            #expect(text == JSONReference.serialized(value), "seed \(seed)")
            #expect(try JSONValue.parse(text) == value, "seed \(seed): \(text)")
        }
    }

    @Test func escapesNumbersAndOrder() {
        #expect(JSONValue.string("q\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1b}\u{7f}\u{2028}é😀").serialized()
                == "\"q\\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001b\\u007f\\u2028é😀\"")
        // Unsafe for a terminal, escaped though JSON allows them raw: C1 CSI, a bidi override, a tag character.
        #expect(JSONValue.string("\u{9b}2J\u{202e}x\u{e0041}").serialized() == "\"\\u009b2J\\u202ex\\udb40\\udc41\"")
        let numbers: [(Double, String)] = [(1.5, "1.5"), (0.1, "0.1"), (1e20, "1e+20"), (1e-7, "1e-07"), (-0.0, "0"),
                                           (9e15, "9000000000000000"), (8999999999999999, "8999999999999999"),
                                           (5e-324, "5e-324"), (123456789012.5, "123456789012.5"), (-42, "-42")]
        for (number, text) in numbers {
            #expect(JSONValue.number(number).serialized() == text)
        }
        let keys: JSONValue = ["b": 1, "a10": 2, "a9": 3, "B": 4, "é": 5, "e\u{301}x": 6, "\u{FF5E}": 7, "😀": 8, "": 9]
        #expect(keys.serialized() == "{\"\":9,\"B\":4,\"a10\":2,\"a9\":3,\"b\":1,\"e\u{301}x\":6,\"é\":5,\"\u{FF5E}\":7,\"😀\":8}")
        #expect(keys.serialized() == JSONReference.serialized(keys))
    }

    @Test func aValueThatIsNotFiniteWritesNullAsBefore() {
        for value: JSONValue in [.number(.nan), ["a": [1, .number(.infinity)]], [.number(-.infinity)]] {
            #expect(value.serialized() == "null")
            #expect(JSONReference.serialized(value) == "null")
        }
    }
}
