import FoundationEssentials
import WCSJSON

/// What `JSONValue.parse` and `serialized()` did before JSONParser and JSONWriter: the same
/// `JSONValue` Codable conformance through FoundationEssentials' JSONDecoder and JSONEncoder. The
/// tests hold the new code to it, input by input.
enum JSONReference {
    /// The old parse: a value, or nil where it threw.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The old serialization.
    static func serialized(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return escapingUnsafe(String(decoding: data, as: UTF8.self))
    }

    /// The encoder's text with the scalars it left raw that `UntrustedText` calls unsafe (DEL, C1,
    /// bidi and other format characters, U+2028/2029) as `\uXXXX` escapes, as JSONWriter writes them
    /// (outside strings JSON text is ASCII, so only string contents change).
    static func escapingUnsafe(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            guard UntrustedText.isUnsafe(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    /// The new parse: a value, or nil where it threw.
    static func parsedNow(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { try? JSONValue.parse($0) }
    }

    /// The files of a fuzz corpus (Tests/Fuzz/NAME/corpus): real messages recorded from the emulator.
    static func corpus(_ name: String) throws -> [(name: String, bytes: [UInt8])] {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appending(path: "Fuzz/\(name)/corpus")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try files.map { ($0, Array(try Data(contentsOf: directory.appending(path: $0)))) }
    }
}

/// A small deterministic generator (SplitMix64), so a failing input can be found again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random JSON values and texts for the differential tests.
enum RandomJSON {
    static let scalars: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{a}",
                                            "\u{c}", "\u{d}", "\u{1f}", "\u{7f}", "é", "\u{301}", "\u{2028}", "\u{FEFF}",
                                            "\u{FFFF}", "中", "😀", "\u{10FFFF}"]

    static func string(_ random: inout SeededGenerator) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...6, using: &random) { text.append(scalars.randomElement(using: &random)!) }
        return String(text)
    }

    static func number(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0...5, using: &random) {
        case 0: return Double(Int.random(in: -100...100_000, using: &random))
        case 1: return Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &random))
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        case 3: return Double(sign: .plus, exponent: Int.random(in: -1070...1020, using: &random),
                              significand: Double.random(in: 1..<2, using: &random))
        case 4: return [0, -0.0, 9e15, 8999999999999999, 1e15, 0.1, 1e21, 5e-324, 1.7976931348623157e308].randomElement(using: &random)!
        default: return Double(Int.random(in: -1000...1000, using: &random)) / 8
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(number(&random))
        case 3: return .string(string(&random))
        case 4: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) { members[string(&random)] = value(&random, depth: depth + 1) }
            return .object(members)
        }
    }

    /// `text` with a few bytes changed, dropped or put in (never a NUL or a UTF-16/32 mark, which
    /// would make JSONDecoder guess another encoding).
    static func mutated(_ text: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        let alphabet = Array("{}[],:\"\\-+.eE0123456789 \t\r\nabtfnru".utf8) + [0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        var bytes = text
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0...2, using: &random) {
            case 0 where at < bytes.count: bytes[at] = alphabet.randomElement(using: &random)!
            case 1 where at < bytes.count: bytes.remove(at: at)
            default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
            }
        }
        return bytes.first == 0xFE || bytes.first == 0xFF ? Array(bytes.dropFirst()) : bytes
    }
}
