/// `JSONValue` to compact JSON text, byte for byte what `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` wrote when `JSONValue.serialized()` went through it: members sorted by
/// the UTF-8 of their names; `"` and `\` escaped, `\b \f \n \r \t` named, the other control
/// characters as `\u00XX`; DEL and the other scalars `UntrustedText` calls unsafe (C1 controls, bidi and
/// other format characters, U+2028/2029) as `\uXXXX` too, so JSON printed to a terminal cannot drive
/// it (the same value for any JSON reader; JSONEncoder wrote those raw); everything else (also `/`) as it is; an integral number
/// below 9e15 in magnitude as an integer, any other as Swift prints a `Double` without a final
/// `.0` (`1e+20`, `0.1`). A number that is not finite makes the whole text `null`, as the
/// encoder's error did. A value type used once per text; any thread; no Codable, no Foundation.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// Appends `value`; false if it holds a NaN or an infinity.
    mutating func write(_ value: JSONValue) -> Bool {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number):
            guard number.isFinite else { return false }
            append(Self.numberText(number))
        case .string(let text): writeString(text)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                guard write(item) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (position, member) in sorted.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key)
                bytes.append(UInt8(ascii: ":"))
                guard write(member.value) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// A finite number's text.
    static func numberText(_ number: Double) -> String {
        if number.rounded() == number && abs(number) < 9e15 { return String(Int64(number)) }
        let text = number.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            guard scalar.isASCII else {
                if UntrustedText.isUnsafe(scalar) {
                    for unit in String(scalar).utf16 { appendUnicodeEscape(unit) }
                } else {
                    bytes.append(contentsOf: String(scalar).utf8)
                }
                continue
            }
            let byte = UInt8(scalar.value)
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20, 0x7F: appendUnicodeEscape(UInt16(byte))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX` for one UTF-16 code unit.
    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        append("\\u")
        for shift in stride(from: 12, through: 0, by: -4) { bytes.append(Self.hexDigit(UInt8((unit >> UInt16(shift)) & 0xF))) }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
