import Foundation
import Testing
import DecimalText

/// `DecimalText` prints what `String(format:)` printed for the same conversion (the text it
/// replaced in logs, benchmark reports and the prompt), including the rounding of values that are
/// not exact in binary and the edges (negative zero, huge values, infinities, clamped decimals).
@Suite struct DecimalTextTests {
    static let values: [Double] = [
        0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.005, 2.345, 2.5, 3.5, -2.5, -0.04, 12.3456, 99.95, 99.949_999,
        1e-7, 123_456_789.987_654, 1e21, -1e21, 4.35, 0.125, 0.375, 1.0 / 3.0, Double.pi,
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
    ]

    @Test func fixedMatchesStringFormat() {
        for value in Self.values {
            for decimals in 0...6 {
                #expect(DecimalText.fixed(value, decimals: decimals) == String(format: "%.\(decimals)f", value),
                        "\(value) with \(decimals) decimals")
            }
        }
    }

    @Test func fixedExamples() {
        #expect(DecimalText.fixed(2.345, decimals: 1) == "2.3")
        #expect(DecimalText.fixed(0.05, decimals: 1) == "0.1", "0.05 is a little above in binary")
        #expect(DecimalText.fixed(0.25, decimals: 1) == "0.2", "an exact tie rounds to even")
        #expect(DecimalText.fixed(-0.04, decimals: 1) == "-0.0")
        #expect(DecimalText.fixed(7, decimals: 0) == "7")
        #expect(DecimalText.fixed(1234.5, decimals: 3) == "1234.500")
    }

    @Test func fixedNonFinite() {
        #expect(DecimalText.fixed(.infinity, decimals: 1) == "inf")
        #expect(DecimalText.fixed(-.infinity, decimals: 1) == "-inf")
        #expect(DecimalText.fixed(.nan, decimals: 2) == "nan")
    }

    @Test func fixedClampsDecimals() {
        #expect(DecimalText.fixed(1.5, decimals: -3) == "2")
        #expect(DecimalText.fixed(0.1, decimals: 40) == String(format: "%.17f", 0.1))
        #expect(DecimalText.fixed(-Double.greatestFiniteMagnitude, decimals: 40).count == 1 + 309 + 1 + 17)
    }

    @Test func zeroPaddedMatchesStringFormat() {
        for value in [0, 1, 7, 9, 10, 59, 99, 100, 3599, 123_456, -1, -7, -10, -123, Int.max, Int.min] {
            for width in 0...4 {
                #expect(DecimalText.zeroPadded(value, width: width) == String(format: "%0\(width)ld", value),
                        "\(value) in width \(width)")
            }
        }
    }

    @Test func zeroPaddedOtherIntegerTypes() {
        #expect(DecimalText.zeroPadded(Int32(5), width: 2) == "05")
        #expect(DecimalText.zeroPadded(UInt8(255), width: 4) == "0255")
        #expect(DecimalText.zeroPadded(Int64(-3), width: 3) == "-03")
    }
}
