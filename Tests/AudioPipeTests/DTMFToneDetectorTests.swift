import AudioPipe
import DTMFHarness
import Foundation
import TestSupport
import Testing

/// The in-audio DTMF detector (`DTMFToneDetector`): keys, Q.24 timing and twist, and issue 22's
/// short harness (door codes under speech over Opus at 5 % loss; speech and music with no digits).
@Suite struct DTMFToneDetectorTests {
    /// The keys `detector` reports for `signal`, fed in 20 ms frames.
    static func keys(in signal: [Int16], detector: inout DTMFToneDetector) -> String {
        var found = ""
        var padded = signal
        padded += [Int16](repeating: 0, count: (960 - signal.count % 960) % 960 + 960 * 4)
        padded.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 960) {
                detector.process(UnsafeBufferPointer(rebasing: all[start..<(start + 960)])) { found.append($0) }
            }
        }
        return found
    }

    static func tones(_ keys: String, toneMs: Double, gapMs: Double, level: Double = -10, twist: Double = 0, seed: UInt64 = 1) -> [Int16] {
        var random = RTPSeededGenerator(seed: seed)
        var signal = [Int16](repeating: 0, count: 4_800)
        _ = DTMFKeySignal.add(keys, into: &signal, at: 4_800, toneMs: toneMs...toneMs, gapMs: gapMs...gapMs,
                              levelDBm0: level...level, twistDB: twist...twist, deviation: 0, using: &random)
        return signal
    }

    @Test("Every key of the pad is reported once with 50 ms tones and Q.24's shortest pause (40 ms)")
    func everyKeyAtShortTiming() {
        var detector = DTMFToneDetector()
        let all = "123A456B789C*0#D"
        #expect(Self.keys(in: Self.tones(all, toneMs: 50, gapMs: 40), detector: &detector) == all)
        var slow = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones(all, toneMs: 200, gapMs: 100), detector: &slow) == all)
    }

    @Test("A repeated key needs the pause between: 11 with 40 ms between is two presses; a 500 ms tone is one")
    func repeatsAndLongTones() {
        var detector = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones("1155", toneMs: 60, gapMs: 40), detector: &detector) == "1155")
        var long = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones("9", toneMs: 500, gapMs: 0), detector: &long) == "9")
    }

    @Test("Tones of 20 ms are not keys (Q.24: reject under 23 ms)")
    func shortTonesRejected() {
        var detector = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones("5555", toneMs: 20, gapMs: 60), detector: &detector) == "")
    }

    @Test("Twist: a column tone 6 dB under the row tone is accepted, 12 dB under or 8 dB over is not")
    func twistLimits() {
        var ok = DTMFToneDetector(), weakHigh = DTMFToneDetector(), strongHigh = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones("7", toneMs: 80, gapMs: 50, twist: -6), detector: &ok) == "7")
        #expect(Self.keys(in: Self.tones("7", toneMs: 80, gapMs: 50, twist: -12), detector: &weakHigh) == "")
        #expect(Self.keys(in: Self.tones("7", toneMs: 80, gapMs: 50, twist: 8), detector: &strongHigh) == "")
    }

    @Test("Levels: -25 dBm0 per tone is a key, -40 dBm0 is not; a single tone is never one")
    func levels() {
        var quiet = DTMFToneDetector(), tooQuiet = DTMFToneDetector(), single = DTMFToneDetector()
        #expect(Self.keys(in: Self.tones("3", toneMs: 80, gapMs: 50, level: -25), detector: &quiet) == "3")
        #expect(Self.keys(in: Self.tones("3", toneMs: 80, gapMs: 50, level: -40), detector: &tooQuiet) == "")
        #expect(Self.keys(in: TestSignal.sine(frequency: 697, amplitude: 0.3, count: 48_000), detector: &single) == "")
    }

    @Test("Issue 22 short harness: 20 codes clean all intact; 20 under speech 10 dB down over Opus at 5 % loss; 40 s of speech and music")
    func shortHarness() throws {
        let work = try TemporaryDirectory(prefix: "dtmf-harness")
        let clean = try DTMFCodeRun.run(codes: 20, noDigitSeconds: 0, lossPercent: 0, speechUnderDB: 80, work: work.url)
        let figures = try DTMFCodeRun.run(codes: 20, noDigitSeconds: 40, work: work.url)
        print(String(format: "DTMF short harness: clean %d/%d codes intact; under speech 10 dB down at 5 %% loss %d/%d codes intact, "
                     + "%d/%d keys, %d extra; last key reported %.0f ms (median) / %.0f ms (max) after its tone started; "
                     + "%d false keys (%@) in %.0f s of speech and music; detector %.1f µs per 20 ms frame (%.3f %% of a core, this build); "
                     + "%d of %d frames lost",
                     clean.codesIntact, clean.codes, figures.codesIntact, figures.codes, figures.keysFound, figures.keysSent,
                     figures.extraKeys, figures.percentile(0.5), figures.percentile(1), figures.falseDigits, figures.falseDigitKeys,
                     figures.noDigitSeconds, figures.detectorMicrosPerFrame, figures.detectorMicrosPerFrame * 50 / 1e4,
                     figures.lostFrames, figures.frames))
        #expect(clean.codesIntact == clean.codes && clean.extraKeys == 0)
        // Speech under the tones and loss cost keys (the full figures are in make bench); a
        // detector that lost its way would find far fewer.
        #expect(figures.keysFound * 10 >= figures.keysSent * 9)
        #expect(figures.percentile(1) < 150)
        #expect(figures.falseDigits <= 10)
    }
}
