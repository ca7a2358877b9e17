/// ITU-T G.711 companding: µ-law (PCMU) and A-law (PCMA) for single 16-bit samples.
///
/// The lookup tables are computed at first use from the segment/mantissa definitions of G.711
/// (µ-law on the 14 most significant bits with a bias of 33, A-law on the 13 most significant bits,
/// even bits of A-law codes inverted), not pasted in.
public enum G711 {
    /// The two companding laws.
    public enum Law: Sendable, Equatable {
        /// µ-law, RTP payload type 0 (PCMU).
        case muLaw
        /// A-law, RTP payload type 8 (PCMA).
        case aLaw
    }

    /// Compresses a 16-bit sample to a µ-law code (0 → 0xFF).
    @inline(__always)
    public static func muLaw(_ sample: Int16) -> UInt8 { Tables.muLawEncode[Int(sample >> 2) + 8_192] }

    /// Expands a µ-law code to a 16-bit sample (0xFF → 0, 0x00 → −32 124, 0x80 → 32 124).
    @inline(__always)
    public static func linear(muLaw code: UInt8) -> Int16 { Tables.muLawDecode[Int(code)] }

    /// Compresses a 16-bit sample to an A-law code (0 → 0xD5).
    @inline(__always)
    public static func aLaw(_ sample: Int16) -> UInt8 { Tables.aLawEncode[Int(sample >> 3) + 4_096] }

    /// Expands an A-law code to a 16-bit sample (0xD5 → 8, 0x55 → −8, 0xAA → 32 256).
    @inline(__always)
    public static func linear(aLaw code: UInt8) -> Int16 { Tables.aLawDecode[Int(code)] }

    /// Compresses a sample with the given law.
    @inline(__always)
    public static func encode(_ sample: Int16, law: Law) -> UInt8 {
        law == .muLaw ? muLaw(sample) : aLaw(sample)
    }

    /// Expands a code with the given law.
    @inline(__always)
    public static func decode(_ code: UInt8, law: Law) -> Int16 {
        law == .muLaw ? linear(muLaw: code) : linear(aLaw: code)
    }

    /// The tables, built once.
    private enum Tables {
        /// Indexed by (sample >> 2) + 8192: every 14-bit input value.
        static let muLawEncode: [UInt8] = (-8_192..<8_192).map { muLawCode(fourteenBit: $0) }
        static let muLawDecode: [Int16] = (0..<256).map { muLawValue(UInt8($0)) }
        /// Indexed by (sample >> 3) + 4096: every 13-bit input value.
        static let aLawEncode: [UInt8] = (-4_096..<4_096).map { aLawCode(thirteenBit: $0) }
        static let aLawDecode: [Int16] = (0..<256).map { aLawValue(UInt8($0)) }
    }

    /// µ-law: sign, 3-bit segment and 4-bit mantissa of (|x| + 33), all bits inverted.
    private static func muLawCode(fourteenBit value: Int) -> UInt8 {
        let negative = value < 0
        let biased = min(negative ? -value : value, 8_158) + 33       // 33…8191
        let segment = (Int.bitWidth - biased.leadingZeroBitCount - 1) - 5 // 2^(s+5) ≤ biased < 2^(s+6)
        let mantissa = (biased >> (segment + 1)) & 0x0F
        let code = (negative ? 0x80 : 0) | (segment << 4) | mantissa
        return ~UInt8(code)
    }

    private static func muLawValue(_ code: UInt8) -> Int16 {
        let bits = Int(~code)
        let magnitude = ((((bits & 0x0F) << 3) + 0x84) << ((bits >> 4) & 0x07)) - 0x84
        return Int16(bits & 0x80 != 0 ? -magnitude : magnitude)
    }

    /// A-law: sign, 3-bit segment and 4-bit mantissa of the 12-bit magnitude, XOR 0x55.
    private static func aLawCode(thirteenBit value: Int) -> UInt8 {
        let negative = value < 0
        let magnitude = negative ? -value - 1 : value                     // 0…4095
        let segment = magnitude < 32 ? 0 : (Int.bitWidth - magnitude.leadingZeroBitCount - 1) - 4
        let mantissa = (segment == 0 ? magnitude >> 1 : magnitude >> segment) & 0x0F
        let code = (negative ? 0 : 0x80) | (segment << 4) | mantissa
        return UInt8(code) ^ 0x55
    }

    private static func aLawValue(_ code: UInt8) -> Int16 {
        let bits = Int(code ^ 0x55)
        let segment = (bits >> 4) & 0x07
        let step = ((bits & 0x0F) << 4) + 8                               // mid-point of the interval
        let magnitude = segment == 0 ? step : (step + 0x100) << (segment - 1)
        return Int16(bits & 0x80 != 0 ? magnitude : -magnitude)
    }
}
