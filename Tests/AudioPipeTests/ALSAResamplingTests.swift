@testable import MediaBenchmarks
import Foundation
import Testing
import TestSupport
@testable import AudioPipe

/// `alsa:` devices that run at another rate than the calls' 48 kHz: a `plug` whose slave (a `file`
/// PCM over `null`) is fixed at 8 or 44.1 kHz, as a USB headset or a 44.1 kHz card would be. The
/// sink and source still talk 48 kHz; alsa-lib's plug converts (ALSAPCM asks for soft_resample:
/// without it opening such a device fails with "Rate doesn't match"). The tone must keep its
/// pitch: 660 Hz written at 48 kHz lands in the file as 660 Hz at the device rate (not 660 × rate
/// / 48000), and a 440 Hz file at the device rate is captured as 440 Hz at 48 kHz.
@Suite(.serialized) struct ALSAResamplingTests {
    /// An asoundrc with `slowcap` and `slowplay`: plugs over file PCMs at `rate`, mono s16le;
    /// `slowcap` reads 3 s of 440 Hz at `rate` from in.raw, `slowplay` writes out.raw.
    static func devices(rate: Int) -> (TemporaryDirectory) throws -> String {
        { scratch in
            let tone = (0..<(3 * rate)).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
            try tone.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: scratch.file("in.raw")))
            return ["slowcap": "file \"/dev/null\"\n    infile \"\(scratch.file("in.raw"))\"",
                    "slowplay": "file \"\(scratch.file("out.raw"))\""].map { name, files in
                """
                pcm.\(name) {
                    type plug
                    slave { pcm "\(name)file"; rate \(rate); format S16_LE; channels 1 }
                }
                pcm.\(name)file {
                    type file
                    slave.pcm "null"
                    \(files)
                    format "raw"
                }

                """
            }.joined()
        }
    }

    @Test(arguments: [8000, 44_100])
    func aToneKeepsItsPitchThroughADeviceAtAnotherRate(rate: Int) throws {
        try ALSAIOTests.withAsoundrc(Self.devices(rate: rate)) { scratch in
            let source = try ALSASource(device: "slowcap")
            var frame = [Int16](repeating: 0, count: AudioPipe.samplesPerFrame)
            var tonal = 0
            for _ in 0..<25 {
                usleep(20_000)
                #expect(source.read(into: &frame) == frame.count)
                if let f = SpectrumAnalysis.dominantFrequency(frame, sampleRate: 48_000), abs(f - 440) < 15 { tonal += 1 }
            }
            source.close()
            #expect(tonal >= 20, "\(rate) Hz device: frames carrying 440 Hz at 48 kHz: \(tonal) of 25")

            // All of the tone queued at once: no silence gaps where a slow writer let the ring run dry
            // (a filtering converter such as libasound2-plugins' speexrate rings at each gap's edges).
            let sink = try ALSASink(device: "slowplay", bufferMilliseconds: 1500)
            let written = (0..<48_000).map { Int16(6000 * sin(2 * Double.pi * 660 * Double($0) / 48_000)) }
            for start in stride(from: 0, to: written.count, by: AudioPipe.samplesPerFrame) {
                try sink.write(Array(written[start..<start + AudioPipe.samplesPerFrame]))
            }
            try sink.close()
            #expect(sink.droppedSamples == 0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file("out.raw")))
            let played = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.filter { $0 != 0 }
            // 1 s of tone is `rate` samples at the device (a few land on 0 and are not counted).
            #expect(abs(played.count - rate) <= rate / 50, "\(rate) Hz device: \(played.count) tone samples for 1 s")
            let pitch = SpectrumAnalysis.dominantFrequency(Array(played.prefix(rate / 2)), sampleRate: rate) ?? 0
            #expect(abs(pitch - 660) < 15, "\(rate) Hz device: the 660 Hz tone came out at \(pitch) Hz")
        }
    }
}
