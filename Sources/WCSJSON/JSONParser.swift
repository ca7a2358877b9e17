#if canImport(Glibc)
import Glibc
#endif

/// RFC 8259 text to `JSONValue`, byte by byte, without Codable or Foundation.
///
/// It accepts exactly what `JSONDecoder` (FoundationEssentials) accepted when `JSONValue.parse`
/// went through it, so no message changes meaning: UTF-8 with an optional byte order mark;
/// one trailing comma in an array or object (`[1,]`); at most 512 nested arrays and objects; for
/// a repeated key the first value; a number that overflows to infinity, or a non-zero one that
/// underflows to zero, is an error; a lone UTF-16 surrogate escape is an error. (Not carried over:
/// JSONDecoder's guess at UTF-16 and UTF-32 text; JSON on every wire here is UTF-8.)
///
/// A value type used once per text; any thread. The first use costs no type metadata beyond
/// `JSONValue` itself, which is what the lean front and the daemon's per-message path want.
struct JSONParser {
    /// Nesting deeper than this is an error (JSONDecoder's limit).
    static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    /// The one value of the text, with nothing but whitespace after it.
    mutating func parseDocument() throws(JSONValue.ParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
        return value
    }

    private mutating func parseValue() throws(JSONValue.ParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseContainer(object: true)
        case UInt8(ascii: "["): return try parseContainer(object: false)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    /// An array or an object, from its opening bracket on.
    private mutating func parseContainer(object: Bool) throws(JSONValue.ParseError) -> JSONValue {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        defer { depth -= 1 }
        let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        var items: [JSONValue] = []
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == close {
            index += 1
            return object ? .object(members) : .array(items)
        }
        while true {
            if object {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                let key = try parseString()
                try expect(UInt8(ascii: ":"), "expected ':' after a member name")
                let value = try parseValue()
                if members[key] == nil { members[key] = value }
            } else {
                items.append(try parseValue())
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of text") }
            let separator = bytes[index]
            index += 1
            if separator == close { break }
            guard separator == UInt8(ascii: ",") else { throw failure(object ? "expected ',' or '}'" : "expected ',' or ']'") }
            skipWhitespace()
            if index < bytes.count, bytes[index] == close {  // one trailing comma, as JSONDecoder allowed
                index += 1
                break
            }
        }
        return object ? .object(members) : .array(items)
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
              (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] }) else { throw failure("unexpected character") }
        index += count
        return value
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONValue.ParseError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw failure(message) }
        index += 1
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The error for the byte at the current position.
    func failure(_ message: String) -> JSONValue.ParseError {
        JSONValue.ParseError(description: "malformed JSON: \(message) at byte \(min(index, bytes.count))")
    }
}
