import Testing
@testable import WCSSession

/// The one-decimal log figures WCSSession writes without `String(format:)`.
@Suite struct MillisecondsTextTests {
    @Test func oneDecimalRoundedHalfAwayFromZero() {
        #expect(Milliseconds.text(0) == "0.0")
        #expect(Milliseconds.text(0.04) == "0.0")
        #expect(Milliseconds.text(1.25) == "1.3")
        #expect(Milliseconds.text(12.0) == "12.0")
        #expect(Milliseconds.text(1234.56) == "1234.6")
        #expect(Milliseconds.text(-4.5) == "-4.5")
        #expect(Milliseconds.text(-0.01) == "0.0")
        #expect(Milliseconds.text(99.96) == "100.0")
    }
}
