import Foundation

/// Audio with no DTMF in it, for the false-digit count: espeak-ng speech in several voices and
/// synthesised music (harmonic instruments, chords and melodies over the DTMF band), 48 kHz mono.
public enum NoDigitAudio {
    /// The voices speech is made in (espeak-ng names and variants).
    public static let voices = ["en-us", "en-gb+f3", "de+m3", "fr+f2", "es+m1", "it+f4", "nl+m5", "en-us+klatt4"]

    /// Texts spoken in turn (numbers and key names included: a talker saying "one two three" must not dial).
    static let texts = [
        "Hello, this is the front door. Please wait while I find someone to open it for you.",
        "One two three four five six seven eight nine zero, star and hash, please press the key now.",
        "The delivery is for apartment twelve, on the third floor, the name on the parcel is Anderson.",
        "Could you repeat that? The line is noisy and I can hardly hear you over the traffic outside.",
        "We close at nine in the evening on weekdays and at noon on Saturdays, sorry for the trouble.",
        "Ring the bell twice if nobody answers, then try again in five minutes, thank you very much.",
    ]

    /// About `seconds` of espeak-ng speech, voices taking turns, with short pauses; throws if
    /// espeak-ng cannot run.
    public static func speech(seconds: Double, directory: URL) throws -> [Int16] {
        var out: [Int16] = []
        var turn = 0
        while Double(out.count) < seconds * 48_000 {
            let voice = voices[turn % voices.count]
            let text = texts[turn % texts.count]
            let path = directory.appendingPathComponent("speech-\(turn % (voices.count * texts.count)).wav")
            if !FileManager.default.fileExists(atPath: path.path) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
                process.arguments = ["-v", voice, "-s", String(130 + 10 * (turn % 5)), "-w", path.path, text]
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else { throw HarnessError("espeak-ng failed for voice \(voice)") }
            }
            out += try readWAV48k(path)
            out += [Int16](repeating: 0, count: 48 * (150 + 100 * (turn % 4)))
            turn += 1
        }
        return Array(out.prefix(Int(seconds * 48_000)))
    }

    /// `seconds` of synthesised music: a melody and chords from harmonic instruments (the
    /// partials of real instruments, with attack and decay), notes across the DTMF band, seeded.
    public static func music<G: RandomNumberGenerator>(seconds: Double, using random: inout G) -> [Int16] {
        let count = Int(seconds * 48_000)
        var mix = [Double](repeating: 0, count: count)
        var position = 0
        while position < count {
            let beat = Int(Double.random(in: 0.12...0.5, using: &random) * 48_000)
            let root = Int.random(in: 48...72, using: &random)  // MIDI notes C3..C5
            let chord = [root, root + (Bool.random(using: &random) ? 3 : 4), root + 7, root + 12 + Int.random(in: 0...7, using: &random)]
            let brightness = Double.random(in: 0.4...1, using: &random)
            for (voice, note) in chord.enumerated() {
                let frequency = 440 * pow(2, Double(note - 69) / 12)
                let gain = voice == 3 ? 2_800.0 : 1_600.0
                let length = min(beat * (voice == 3 ? 1 : 2), count - position)
                for index in 0..<length {
                    let t = Double(index) / 48_000
                    let envelope = min(1, t / 0.01) * exp(-t * 3)
                    var value = 0.0
                    for partial in 1...6 { value += pow(brightness, Double(partial - 1)) * sin(2 * Double.pi * frequency * Double(partial) * t) / Double(partial) }
                    mix[position + index] += gain * envelope * value
                }
            }
            position += beat
        }
        return mix.map { Int16(max(-32_767, min(32_767, $0))) }
    }

    /// Reads a 16-bit mono PCM WAV (espeak-ng writes 22.05 kHz) and resamples it to 48 kHz (linear).
    static func readWAV48k(_ url: URL) throws -> [Int16] {
        let data = try Data(contentsOf: url)
        guard data.count > 44, data.prefix(4) == Data("RIFF".utf8) else { throw HarnessError("\(url.path) is not a WAV") }
        let rate = Int(data[24]) | Int(data[25]) << 8 | Int(data[26]) << 16 | Int(data[27]) << 24
        // Find the data chunk.
        var offset = 12
        var pcm = Data()
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            var size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            if id == "data" {
                size = min(size, data.count - offset - 8)  // espeak-ng writing to a file leaves a placeholder size
                pcm = data[(offset + 8)..<(offset + 8 + size)]
                break
            }
            offset += 8 + size
        }
        let samples: [Int16] = pcm.withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
        guard rate > 0, !samples.isEmpty else { return [] }
        let outCount = samples.count * 48_000 / rate
        return (0..<outCount).map { index in
            let position = Double(index) * Double(rate) / 48_000
            let base = Int(position), fraction = position - Double(base)
            let a = Double(samples[min(base, samples.count - 1)]), b = Double(samples[min(base + 1, samples.count - 1)])
            return Int16(a + (b - a) * fraction)
        }
    }
}

/// A harness failure with its reason.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
