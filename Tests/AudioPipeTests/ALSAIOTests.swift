@testable import MediaBenchmarks
import CALSA
import Foundation
import Testing
import TestSupport
@testable import AudioPipe

/// `alsa:` sources and sinks through alsa-lib, on ALSA's userspace `file` and `null` plugins
/// defined in a test asoundrc (this machine has no sound card): capture reads the plugin's
/// `infile`, playback lands in its `file`.
@Suite(.serialized) struct ALSAIOTests {
    /// Runs `body` with `$HOME` pointing at a directory whose .asoundrc defines `testcap` and `testplay`.
    static func withTestDevices(_ body: (TemporaryDirectory) throws -> Void) throws {
        try withAsoundrc({ scratch in
            let tone = (0..<96_000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
            try tone.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: scratch.file("in.raw")))
            return """
            pcm.testcap {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(scratch.file("in.raw"))"
                format "raw"
            }
            pcm.testplay {
                type file
                slave.pcm "null"
                file "\(scratch.file("out.raw"))"
                format "raw"
            }
            """
        }, body)
    }

    /// Runs `body` with `$HOME` pointing at a fresh directory whose .asoundrc is what `asoundrc` returns
    /// (it may write files into the directory first). alsa-lib caches its configuration and only
    /// notices a change of alsa.conf, not of ~/.asoundrc, so the cache is dropped on the way in and out.
    static func withAsoundrc(_ asoundrc: (TemporaryDirectory) throws -> String, _ body: (TemporaryDirectory) throws -> Void) throws {
        let scratch = try TemporaryDirectory(prefix: "alsa-test")
        try asoundrc(scratch).write(toFile: scratch.file(".asoundrc"), atomically: true, encoding: .utf8)
        let home = ProcessInfo.processInfo.environment["HOME"]
        setenv("HOME", scratch.path, 1)
        snd_config_update_free_global()
        defer {
            if let home { setenv("HOME", home, 1) } else { unsetenv("HOME") }
            snd_config_update_free_global()
        }
        try body(scratch)
    }

    @Test func captureReadsTheDeviceAndPlaybackWritesIt() throws {
        try Self.withTestDevices { scratch in
            let source = try ALSASource(device: "testcap")
            #expect(source.periodFrames > 0)
            var frame = [Int16](repeating: 0, count: AudioPipe.samplesPerFrame)
            var tonal = 0
            for _ in 0..<25 {
                usleep(20_000)
                #expect(source.read(into: &frame) == frame.count)
                if let f = SpectrumAnalysis.dominantFrequency(frame, sampleRate: 48_000), abs(f - 440) < 15 { tonal += 1 }
            }
            source.close()
            #expect(source.read(into: &frame) == 0, "a closed source reads nothing")
            #expect(tonal >= 20, "frames carrying the device's 440 Hz: \(tonal) of 25")

            let sink = try ALSASink(device: "testplay")
            let written = (0..<48_000).map { Int16(6000 * sin(2 * Double.pi * 660 * Double($0) / 48_000)) }
            for start in stride(from: 0, to: written.count, by: AudioPipe.samplesPerFrame) {
                try sink.write(Array(written[start..<start + AudioPipe.samplesPerFrame]))
                usleep(20_000)
            }
            try sink.close()
            #expect(throws: AudioIOError.closed) { try sink.write([0]) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file("out.raw")))
            let played = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.filter { $0 != 0 }
            #expect(played.count >= written.filter { $0 != 0 }.count - AudioPipe.samplesPerFrame, "tone samples played: \(played.count)")
            #expect(abs((SpectrumAnalysis.dominantFrequency(Array(played.prefix(9600)), sampleRate: 48_000) ?? 0) - 660) < 15)
            #expect(sink.droppedSamples == 0)
        }
    }

    @Test func anUnknownDeviceIsAClearError() throws {
        try Self.withTestDevices { _ in
            #expect { try ALSASource(device: "no-such-pcm") } throws: { "\($0)".contains("ALSA snd_pcm_open no-such-pcm failed") }
            #expect { try ALSASink(device: "no-such-pcm") } throws: { "\($0)".contains("ALSA snd_pcm_open no-such-pcm failed") }
        }
    }
}
