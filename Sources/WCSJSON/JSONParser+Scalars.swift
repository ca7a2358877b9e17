/// Strings and numbers of `JSONParser` (see there for what is accepted).
extension JSONParser {
    /// A string, from its opening quote on: escapes decoded, UTF-8 checked.
    mutating func parseString() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try utf8String(text)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// The rest of a string that has escapes; `start` is its first byte.
    private mutating func parseEscapedString(from start: Int) throws(JSONValue.ParseError) -> String {
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try text.withUnsafeBufferPointer { (buffer) throws(JSONValue.ParseError) in try utf8String(buffer) }
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"): text.append(contentsOf: try unicodeEscape())
                default: throw failure("invalid escape in a string")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in a string") }
                text.append(byte)
            }
        }
        throw failure("unterminated string")
    }

    /// The UTF-8 of a `\uXXXX` escape (after the `u`), a surrogate pair taking two escapes.
    private mutating func unicodeEscape() throws(JSONValue.ParseError) -> [UInt8] {
        let first = try hexQuad()
        var scalar = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired UTF-16 surrogate in a string")
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("unpaired UTF-16 surrogate in a string") }
            scalar = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw failure("unpaired UTF-16 surrogate in a string")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func hexQuad() throws(JSONValue.ParseError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw failure("invalid \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func utf8String(_ text: UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> String {
        guard let string = String(validating: text, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
        return string
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, correctly rounded to the
    /// nearest `Double`. Infinite results, and zero from non-zero digits, are errors (as JSONDecoder had them).
    mutating func parseNumber() throws(JSONValue.ParseError) -> Double {
        let start = index
        var simple = true        // an integer of at most 15 digits: exact as a Double
        var nonZeroDigit = false
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("invalid number (leading zero)") }
        } else {
            nonZeroDigit = true
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            simple = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) {
                if bytes[index] != UInt8(ascii: "0") { nonZeroDigit = true }
                index += 1
            }
        }
        let mantissaEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            simple = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let negative = bytes[start] == UInt8(ascii: "-")
        if simple && mantissaEnd - start - (negative ? 1 : 0) <= 15 {
            var value: Int64 = 0
            for position in (negative ? start + 1 : start)..<mantissaEnd { value = value * 10 + Int64(bytes[position] - 48) }
            return negative ? -Double(value) : Double(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite, value != 0 || !nonZeroDigit else {
            throw failure("number out of range")
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
