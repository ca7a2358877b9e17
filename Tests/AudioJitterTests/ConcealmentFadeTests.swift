import AudioJitter
import Testing

/// `ConcealmentFade`: concealment plays at full level for the first lost slot, fades to silence over
/// the next two, and the first real frame after it fades back in, with no step anywhere.
@Suite struct ConcealmentFadeTests {
    static let level: Int16 = 10_000

    /// One 20 ms slot of a constant level, after `body` has processed it.
    static func slot(_ body: (UnsafeMutableBufferPointer<Int16>) -> Void) -> [Int16] {
        var samples = [Int16](repeating: level, count: 960)
        samples.withUnsafeMutableBufferPointer { body($0) }
        return samples
    }

    @Test func aLossBurstFadesOutAndTheNextFrameFadesIn() {
        var fade = ConcealmentFade()
        var output = Self.slot { fade.play($0) }
        #expect(output.allSatisfy { $0 == Self.level }, "real audio at full level is untouched")
        let firstLoss = Self.slot { fade.conceal($0) }
        #expect(firstLoss.allSatisfy { $0 == Self.level }, "the first lost slot is libopus PLC at full level")
        output += firstLoss
        for _ in 0..<4 { output += Self.slot { fade.conceal($0) } }
        #expect(fade.consecutive == 5 && fade.gain == 0)
        // Slots 2 and 3 fall steadily to zero; 4 and 5 stay silent.
        let fading = Array(output[1_920..<4_800])
        #expect(zip(fading, fading.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(fading[959] > 4_000 && fading[960] < 6_000, "half way at the end of the second lost slot")
        #expect(output[4_799] == 0 && output[4_800...].allSatisfy { $0 == 0 })
        let back = Self.slot { fade.play($0) }
        #expect(back.first! < 100 && back.last! == Self.level, "the next frame fades in from silence")
        #expect(zip(back, back.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(fade.consecutive == 0 && fade.gain == 1)
    }

    @Test func noStepLargerThanTheRampAnywhere() {
        var fade = ConcealmentFade()
        var output: [Int16] = []
        for pattern in [false, true, true, false, true, false, true, true, true, true, false, false] {
            output += Self.slot { pattern ? fade.conceal($0) : fade.play($0) }
        }
        let largest = zip(output, output.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= Int(Self.level) / 960 + 1, "largest step \(largest)")
    }

    @Test func singleLossesKeepFullLevelAndDTXGapsChangeNothing() {
        var fade = ConcealmentFade()
        for _ in 0..<5 {
            #expect(Self.slot { fade.play($0) }.allSatisfy { $0 == Self.level })
            #expect(Self.slot { fade.conceal($0) }.allSatisfy { $0 == Self.level })
        }
        fade.silence()
        #expect(Self.slot { fade.play($0) }.allSatisfy { $0 == Self.level }, "after a DTX gap: no fade-in")
    }

    @Test func theDefaultFadeEndsWhenTheJitterBufferGivesUp() {
        // JitterBuffer outputs .silence after `concealmentLimit` concealed slots: by then the fade is at zero.
        var fade = ConcealmentFade()
        for _ in 0..<JitterBufferConfiguration.opus.concealmentLimit { _ = Self.slot { fade.conceal($0) } }
        #expect(fade.gain == 0)
    }
}
