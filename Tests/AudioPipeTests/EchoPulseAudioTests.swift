import Foundation
import SystemSupport
import Testing
import TestSupport
@testable import AudioPipe

/// The echo canceller through a real sound server: a private PulseAudio (PulseAudioServer) with a
/// `speaker` null sink the call plays to, a `room` null sink whose monitor the call captures, and
/// `module-loopback latency_msec=120` from the speaker's monitor into the room as a known echo path
/// (0 dB, 120 ms plus the server's own buffering), reached through ALSA's `pulse` plugin as
/// `alsa:` devices (ALSASink, ALSASource), the stage ticking every 20 ms as a call's media clock
/// does. Speech from espeak-ng is played; what the microphone hears and what the stage sends on
/// are compared over the last seconds. The real device path: real buffering, the devices' reported
/// delay, the engine's own estimate of the rest. About 17 s.
@Suite(.serialized, .enabled(if: PulseAudioServer.installed && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"),
                             "needs pulseaudio, libasound2-plugins and espeak-ng (make deps)"))
struct EchoPulseAudioTests {
    static let modules = [
        "module-null-sink sink_name=speaker rate=48000 channels=1",
        "module-null-sink sink_name=room rate=48000 channels=1",
        "module-loopback source=speaker.monitor sink=room latency_msec=120",
    ]

    static func withEchoPath(_ body: (PulseAudioServer) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: "echo-test")
        let server = try PulseAudioServer(directory: directory, modules: modules)
        try ALSAIOTests.withAsoundrc({ _ in
            """
            pcm.speaker { type pulse; server "unix:\(server.socketPath)"; device "speaker" }
            pcm.microphone { type pulse; server "unix:\(server.socketPath)"; device "room.monitor" }

            """
        }) { _ in try body(server) }
    }

    /// espeak-ng speech with its pauses, 48 kHz mono.
    static func speech() throws -> [Int16] {
        let directory = try TemporaryDirectory(prefix: "echo-speech")
        let path = directory.file("speech.wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-s", "150", "-w", path, "Hello, this is the front door. Somebody is waiting outside with a parcel. "
            + "Could you please come down and sign for it, or tell me where to leave it? I will wait here for a minute."]
        try process.run()
        process.waitUntilExit()
        return try WAVReader.read48kMono(path: path)
    }

    /// Plays `far` (looped) for `seconds` through the stage and the devices, 20 ms a tick; returns the
    /// microphone's and the output's energy per 250 ms window.
    static func talk(_ far: [Int16], seconds: Int, stage: VoiceProcessingStage, source: ALSASource, sink: ALSASink)
        throws -> [(mic: Double, out: Double)]
    {
        let frame = AudioPipe.samplesPerFrame
        var played = [Int16](repeating: 0, count: frame), captured = [Int16](repeating: 0, count: frame)
        var windows: [(mic: Double, out: Double)] = []
        var window = (mic: 0.0, out: 0.0)
        let start = MonotonicTime.now()
        for tick in 0..<seconds * 50 {
            for i in 0..<frame { played[i] = far[(tick * frame + i) % far.count] }
            played.withUnsafeMutableBufferPointer { stage.farEndPlayed($0) }
            try sink.write(played)
            _ = source.read(into: &captured)
            for sample in captured { window.mic += Double(sample) * Double(sample) }
            captured.withUnsafeMutableBufferPointer { stage.nearEndCaptured($0) }
            for sample in captured { window.out += Double(sample) * Double(sample) }
            if tick % 12 == 11 {
                windows.append(window)
                window = (0, 0)
            }
            let ahead = start + Double(tick + 1) * 0.02 - MonotonicTime.now()
            if ahead > 0 { usleep(UInt32(ahead * 1e6)) }
        }
        return windows
    }

    @Test func theEchoOfALoopbackIsCancelled() throws {
        let far = try Self.speech()
        try Self.withEchoPath { server in
            let sink = try ALSASink(device: "speaker")
            let source = try ALSASource(device: "microphone")
            let stage = try VoiceProcessingStage(settings: VoiceProcessingSettings()) { sink.delayFrames + source.delayFrames }
            let windows = try Self.talk(far, seconds: 16, stage: stage, source: source, sink: sink)
            try sink.close()
            source.close()
            // ERLE over the last 6 s, in windows where the microphone hears the echo (above -50 dBFS).
            let loud = 32768.0 * 32768.0 * 1e-5 * 12 * Double(AudioPipe.samplesPerFrame)
            let late = windows.suffix(25).filter { $0.mic > loud }
            let erle = late.map { 10 * log10($0.mic / max($0.out, 1)) }.sorted()
            let median = erle.isEmpty ? 0 : erle[erle.count / 2]
            let figures = stage.statistics
            let all = windows.map { $0.mic > loud ? String(Int(10 * log10($0.mic / max($0.out, 1)))) : "-" }
            print("live echo through PulseAudio (loopback 120 ms): ERLE median \(String(format: "%.1f", median)) dB over "
                + "\(late.count) windows; reported delay \(figures.reportedDelayMs) ms, engine delay \(figures.engineDelayMs ?? -1) ms; "
                + "ERLE per 240 ms: \(all.joined(separator: " "))")
            #expect(late.count >= 8, "the microphone heard the loopback: \(windows.map { Int(10 * log10(max($0.mic, 1))) })\n\(server.log().suffix(1500))")
            // The goal is 20 dB (issue 21; Benchmarks/README gives the figures measured). On a host at
            // load 20 on 2 cores the sound server's timing wanders and single runs measured 12-45 dB
            // (median ~23): the test holds a floor that says the canceller works on the real path (off,
            // the echo comes back 0 dB down), and prints the figure.
            #expect(median >= 10, "ERLE \(erle)")
            #expect(figures.engineErrors == 0)
        }
    }
}
