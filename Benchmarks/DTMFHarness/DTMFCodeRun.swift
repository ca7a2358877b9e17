import AudioPipe
import Foundation
import TestSupport

/// The in-audio half of issue 22's DTMF goals, offline and seeded: `codes` door codes played as
/// tones with speech `speechUnderDB` under them, through Opus at `lossPercent` loss, into the
/// detector; then audio with no digits at all (speech and music) for false digits.
public enum DTMFCodeRun {
    /// What one run found.
    public struct Figures: Sendable {
        public var codes = 0
        /// Codes whose every key was reported exactly once, in order, and nothing else in between.
        public var codesIntact = 0
        public var keysSent = 0
        public var keysFound = 0
        /// Keys reported that were not sent (inside the code audio).
        public var extraKeys = 0
        /// Per code: ms from the start of its last key's tone to the report of that key.
        public var lastKeyLatenciesMs: [Double] = []
        /// Reports in the no-digit audio, and its length in seconds.
        public var falseDigits = 0
        public var falseDigitKeys = ""
        public var noDigitSeconds = 0.0
        /// Detector CPU per 20 ms frame, µs, and frames measured.
        public var detectorMicrosPerFrame = 0.0
        public var frames = 0
        public var lostFrames = 0
        /// The codes as sent and the keys as reported, in order (for a code matcher downstream).
        public var sentCodes: [String] = []
        public var reportedKeys: [(key: Character, sample: Int)] = []
        /// The end sample of each code's last tone and its start (for latencies downstream).
        public var codeEnds: [(lastStart: Int, lastEnd: Int)] = []
        /// Codes not intact: what was sent and what was reported in its window.
        public var misses: [(sent: String, reported: String)] = []

        public init() {}

        public func percentile(_ p: Double) -> Double {
            guard !lastKeyLatenciesMs.isEmpty else { return 0 }
            let sorted = lastKeyLatenciesMs.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
        }
    }

    /// A random door code: 3-6 digits, often led by `*` and closed by `#`.
    public static func randomCode<G: RandomNumberGenerator>(using random: inout G) -> String {
        let digits = String((0..<Int.random(in: 3...6, using: &random)).map { _ in "0123456789".randomElement(using: &random)! })
        return (Bool.random(using: &random) ? "*" : "") + digits + (Bool.random(using: &random) ? "#" : "")
    }

    /// Runs the codes with speech under them, then `noDigitSeconds` of speech and music (half each).
    public static func run(codes: Int, noDigitSeconds: Double, lossPercent: Double = 5, speechUnderDB: Double = 10,
                           seed: UInt64 = 22, work: URL) throws -> Figures {
        var random = RTPSeededGenerator(seed: seed)
        var figures = Figures()
        let speech = try NoDigitAudio.speech(seconds: max(60, noDigitSeconds / 2), directory: work)
        // The codes: each after 0.4-1.2 s of speech; speech continues under the tones.
        var signal: [Int16] = []
        var placedAll: [[DTMFKeySignal.Placed]] = []
        var speechPosition = 0
        for _ in 0..<codes {
            let code = randomCode(using: &random)
            figures.sentCodes.append(code)
            let lead = Int(Double.random(in: 0.4...1.2, using: &random) * 48_000)
            let start = signal.count + lead
            var segment = [Int16](repeating: 0, count: lead)
            let placed = DTMFKeySignal.add(code, into: &segment, at: lead, using: &random).map {
                DTMFKeySignal.Placed(key: $0.key, start: $0.start + signal.count, end: $0.end + signal.count)
            }
            segment += [Int16](repeating: 0, count: 48 * 200)
            // Speech under the tones, `speechUnderDB` below the tones' level.
            let toneRMS = DTMFKeySignal.activeRMS(segment[lead...])
            var under = [Int16]()
            while under.count < segment.count {
                let take = min(segment.count - under.count, speech.count - speechPosition)
                under += speech[speechPosition..<(speechPosition + take)]
                speechPosition = (speechPosition + take) % speech.count
            }
            let speechRMS = DTMFKeySignal.activeRMS(under[...])
            let gain = speechRMS > 0 ? toneRMS / speechRMS * pow(10, -speechUnderDB / 20) : 0
            let quiet = DTMFKeySignal.scaled(under[...], gain: gain)
            for index in segment.indices {
                segment[index] = Int16(max(-32_767, min(32_767, Int(segment[index]) + Int(quiet[index]))))
            }
            _ = start
            signal += segment
            placedAll.append(placed)
        }
        var channel = try DTMFOpusChannel(lossPercent: lossPercent, seed: seed &+ 1)
        try channel.run(signal)
        figures.reportedKeys = channel.detections.map { ($0.key, $0.sample) }
        score(placedAll, channel.detections, into: &figures)
        // No digits: speech, then music.
        let musicSeconds = noDigitSeconds / 2
        let quietAudio = Array(speech.prefix(Int((noDigitSeconds - musicSeconds) * 48_000)))
            + NoDigitAudio.music(seconds: musicSeconds, using: &random)
        var silentChannel = try DTMFOpusChannel(lossPercent: lossPercent, seed: seed &+ 2)
        try silentChannel.run(quietAudio)
        figures.falseDigits = silentChannel.detections.count
        figures.falseDigitKeys = String(silentChannel.detections.map(\.key))
        figures.noDigitSeconds = Double(quietAudio.count) / 48_000
        figures.frames = channel.frames + silentChannel.frames
        figures.lostFrames = channel.lostFrames + silentChannel.lostFrames
        figures.detectorMicrosPerFrame = (channel.detectorSeconds + silentChannel.detectorSeconds) * 1e6 / Double(max(figures.frames, 1))
        return figures
    }

    /// Matches reports to sent keys: a report matches the next unmatched key if it is that key
    /// and falls between the key's start and 100 ms after its end (codec delay and a lost frame).
    static func score(_ codes: [[DTMFKeySignal.Placed]], _ detections: [DTMFOpusChannel.Detection], into figures: inout Figures) {
        var next = 0
        for placed in codes {
            figures.codes += 1
            figures.keysSent += placed.count
            var found = 0, extra = 0
            var lastLatency: Double?
            let windowEnd = (placed.last?.end ?? 0) + 48 * 100
            var keyIndex = 0
            var reported = ""
            while next < detections.count, detections[next].sample <= windowEnd {
                let detection = detections[next]
                next += 1
                reported.append(detection.key)
                // Skip keys the detector missed.
                while keyIndex < placed.count, detection.sample > placed[keyIndex].end + 48 * 100 { keyIndex += 1 }
                if keyIndex < placed.count, detection.key == placed[keyIndex].key, detection.sample >= placed[keyIndex].start {
                    found += 1
                    if keyIndex == placed.count - 1 { lastLatency = Double(detection.sample - placed[keyIndex].start) / 48 }
                    keyIndex += 1
                } else {
                    extra += 1
                }
            }
            figures.keysFound += found
            figures.extraKeys += extra
            if found == placed.count, extra == 0 {
                figures.codesIntact += 1
            } else {
                figures.misses.append((String(placed.map(\.key)), reported))
            }
            if let lastLatency { figures.lastKeyLatenciesMs.append(lastLatency) }
            if let last = placed.last { figures.codeEnds.append((last.start, last.end)) }
        }
    }
}
