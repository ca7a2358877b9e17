@testable import AudioPipe
import Testing

/// The SRTP packet index estimate (RFC 3711 Appendix A) and the 128-packet replay window.
@Suite struct SRTPReplayWindowTests {
    @Test func indexFollowsTheRolloverBothWays() {
        var window = SRTPReplayWindow()
        #expect(window.estimateIndex(sequence: 65_000) == 65_000)
        window.accept(65_000)
        #expect(window.estimateIndex(sequence: 3) == 65_536 + 3, "wrapped forward")
        window.accept(65_539)
        #expect(window.estimateIndex(sequence: 65_530) == 65_530, "a late packet from before the wrap")
        #expect(window.estimateIndex(sequence: 100) == 65_536 + 100)
        // While the ROC is 0 a guess below zero stays in ROC 0 (libsrtp does the same).
        var fresh = SRTPReplayWindow()
        fresh.accept(3)
        #expect(fresh.estimateIndex(sequence: 40_000) == 40_000)
    }

    @Test func windowRemembers128PacketsBehindTheHighest() {
        var window = SRTPReplayWindow()
        for index in stride(from: UInt64(1_000), to: 1_300, by: 2) { window.accept(index) }  // evens up to 1298
        #expect(!window.isFresh(1_298) && !window.isFresh(1_200))
        #expect(window.isFresh(1_299) && window.isFresh(1_297) && window.isFresh(1_171))
        #expect(!window.isFresh(1_170), "128 behind: out of the window")
        window.accept(1_171)
        #expect(!window.isFresh(1_171))
        window.accept(1_298 + 64)  // shift by exactly 64
        #expect(!window.isFresh(1_298) && !window.isFresh(1_296) && window.isFresh(1_297))
        window.accept(10_000)  // a jump clears the window
        #expect(window.isFresh(9_999) && !window.isFresh(10_000) && !window.isFresh(9_872))
    }
}
