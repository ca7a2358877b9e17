@testable import MediaBenchmarks
import Foundation
import Testing
import TestSupport
@testable import AudioPipe

/// `alsa:` devices served by a real PulseAudio (PulseAudioServer: a null sink, no card) through
/// ALSA's `pulse` plugin, the path docs/config.md gives desktop users. Unlike ALSA's own `null` and
/// `file` plugins this device has a clock, so it can underrun: a playback stream left without data
/// longer than its buffer reports an xrun (-EPIPE), which
/// ALSAPCM recovers and counts, and the stream plays on.
@Suite(.serialized, .enabled(if: PulseAudioServer.installed, "needs pulseaudio and libasound2-plugins (make deps)"))
struct ALSAPulseAudioTests {
    /// Runs `body` with a PulseAudio server and an asoundrc naming `pa` (its null sink) and
    /// `pamonitor` (what that sink plays).
    static func withPulseAudio(_ body: (PulseAudioServer) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: "pulse-test")
        let server = try PulseAudioServer(directory: directory)
        try ALSAIOTests.withAsoundrc({ _ in
            """
            pcm.pa { type pulse; server "unix:\(server.socketPath)"; device "testsink" }
            pcm.pamonitor { type pulse; server "unix:\(server.socketPath)"; device "testsink.monitor" }

            """
        }) { _ in try body(server) }
    }

    /// Rings of 3 s on both sides and a generous deadline: a PulseAudio under load runs its null
    /// sink slower than real time (measured here at load 10: 2 s of audio in 4 s), which must not
    /// turn into dropped samples or a failed test; what is checked is that the tone arrives.
    @Test func aTonePlayedToPulseAudioIsHeardOnItsMonitor() throws {
        try Self.withPulseAudio { server in
            let source = try ALSASource(device: "pamonitor", bufferMilliseconds: 3000)
            let sink = try ALSASink(device: "pa", bufferMilliseconds: 3000)
            let tone = (0..<96_000).map { Int16(6000 * sin(2 * Double.pi * 660 * Double($0) / 48_000)) }
            for start in stride(from: 0, to: tone.count, by: AudioPipe.samplesPerFrame) {
                try sink.write(Array(tone[start..<start + AudioPipe.samplesPerFrame]))
            }
            var frame = [Int16](repeating: 0, count: AudioPipe.samplesPerFrame)
            var heard = 0
            let deadline = Date().addingTimeInterval(15)
            while heard < 50 && Date() < deadline {
                usleep(20_000)
                _ = source.read(into: &frame)
                if let f = SpectrumAnalysis.dominantFrequency(frame, sampleRate: 48_000), abs(f - 660) < 15 { heard += 1 }
            }
            try sink.close()
            source.close()
            #expect(heard >= 50, "20 ms frames carrying 660 Hz on the monitor: \(heard) of the 100 played\n\(server.log().suffix(1500))")
            #expect(sink.droppedSamples == 0)
        }
    }

    @Test func aPlaybackUnderrunIsRecoveredAndTheStreamPlaysOn() throws {
        try Self.withPulseAudio { server in
            let pcm = try ALSAPCM(name: "pa", capture: false)
            let period = [Int16](repeating: 1000, count: pcm.periodFrames)
            func play(_ periods: Int) throws -> Int {
                var frames = 0
                for _ in 0..<periods { frames += try period.withUnsafeBufferPointer { try pcm.write($0.baseAddress!, frames: $0.count) } }
                return frames
            }
            _ = try play(5)
            let before = pcm.recoveries
            usleep(UInt32(3 * pcm.bufferFrames * 1_000_000 / AudioPipe.sampleRate))  // 3 buffers without data
            let afterStall = try play(5)  // the first write meets the xrun, recovers, and the rest play
            #expect(pcm.recoveries > before, "xruns recovered: \(pcm.recoveries - before)\n\(server.log().suffix(1500))")
            #expect(afterStall >= 4 * pcm.periodFrames, "frames accepted after the recovery: \(afterStall)")
            pcm.close()
        }
    }
}
