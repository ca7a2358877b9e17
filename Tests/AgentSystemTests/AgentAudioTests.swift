@testable import MediaBenchmarks
import AudioPipe
import Foundation
import Testing
import TestSupport
import WCSSession

/// The agent answers and places calls with real WebRTC audio against the emulator's aiortc leg.
@Suite(.serialized) struct AgentAudioTests {
    /// Tone analysis of a recording: duration, dominant frequency, RMS level and SNR.
    static func analyse(_ path: String) throws -> (seconds: Double, frequency: Double?, rmsDBFS: Double, snrDB: Double) {
        let samples = try WAVReader.read48kMono(path: path)
        // Skip the first 300 ms (jitter buffer start, codec warm-up).
        let body = Array(samples.dropFirst(min(samples.count, 14_400)))
        let levels = body.withUnsafeBufferPointer { AudioLevels.measure($0, sampleRate: 48_000) }
        let frequency = SpectrumAnalysis.dominantFrequency(body, sampleRate: 48_000)
        return (Double(samples.count) / 48_000, frequency, levels.rmsDBFS, snr(body, frequency: frequency ?? 0))
    }

    /// Median over 100 ms windows of the power of the best-fitting sinusoid at `frequency` against
    /// the power of what is left (noise, distortion, concealment): a tone SNR in dB.
    static func snr(_ x: [Int16], frequency: Double) -> Double {
        let window = 4800
        guard frequency > 0, x.count >= window else { return 0 }
        var ratios: [Double] = []
        var start = 0
        while start + window <= x.count {
            var c = 0.0, s = 0.0, total = 0.0
            for i in 0..<window {
                let v = Double(x[start + i])
                let phase = 2 * Double.pi * frequency * Double(i) / 48_000
                c += v * cos(phase)
                s += v * sin(phase)
                total += v * v
            }
            let a = 2 * c / Double(window), b = 2 * s / Double(window)
            let tone = (a * a + b * b) / 2 * Double(window)
            let rest = max(total - tone, 1e-9)
            ratios.append(10 * log10(tone / rest))
            start += window
        }
        return ratios.sorted()[ratios.count / 2]
    }

    static func audioFlags(_ h: AgentHarness, answer: String = "auto") -> [String] {
        ["--answer", answer, "--audio-source", "tone:880", "--audio-sink", "record:\(h.scratch.file("recordings"))",
         "--media-address", "127.0.0.1"]
    }

    @Test func anIncomingCallIsAnsweredWithAudioBothWays() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Self.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440")
            try h.waitFor("call established") { try h.emulator.control.call(ring.callId)?.state == "established" }
            try h.waitFor("media both ways", timeout: 20) {
                let media = try h.emulator.control.call(ring.callId)?.media
                return (media?.packetsReceived ?? 0) > 120 && (media?.packetsSent ?? 0) > 120
            }
            Thread.sleep(forTimeInterval: 0.5)
            let status = try h.status()
            let call = try #require(status["calls"]?[0])
            #expect(call["call_id"]?.stringValue == ring.callId && call["media"] == true)
            #expect(call["stats"]?["codec"] == "opus")
            // Media to aiortc leaves on the selected host pair's socket, not through libnice.
            #expect((call["stats"]?["packets_sent_direct"]?.intValue ?? 0) > 100, "\(String(describing: call["stats"]))")
            try h.emulator.control.hangup(callId: ring.callId)
            try h.waitFor("call gone") { try h.status()["calls"]?.arrayValue?.isEmpty == true }

            let mine = try Self.analyse(h.scratch.file("recordings/\(ring.callId).wav"))
            #expect(mine.seconds >= 2.0)
            #expect(abs((mine.frequency ?? 0) - 440) < 5, "the agent recorded the caller's 440 Hz: \(mine)")
            #expect(mine.rmsDBFS > -30, "recording level: \(mine)")
            #expect(mine.snrDB > 20, "recording SNR: \(mine)")
            let theirPath = try #require(try h.emulator.control.call(ring.callId)?.media?.recording)
            let theirs = try Self.analyse(theirPath)
            #expect(theirs.seconds >= 2.0)
            #expect(abs((theirs.frequency ?? 0) - 880) < 5, "the caller heard the agent's 880 Hz: \(theirs)")
            #expect(theirs.rmsDBFS > -30)
            #expect(theirs.snrDB > 20, "the caller's recording SNR: \(theirs)")
            print("agent audio test: agent recorded \(mine), caller recorded \(theirs)")
        }
    }

    @Test func aForgedFingerprintFailsTheCallCleanly() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Self.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", fault: "fingerprint")
            try h.waitFor("call ended", timeout: 30) { try h.emulator.control.call(ring.callId)?.state == "ended" }
            #expect(h.log().contains("Failed by DTLS fingerprint error"))
            try h.waitFor("no calls left") { try h.status()["calls"]?.arrayValue?.isEmpty == true }
            #expect(try h.status()["state"] == "online")
        }
    }

    @Test func unreachableCandidatesFailInBoundedTimeAndTheNextCallWorks() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Self.audioFlags(h))
            let bad = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", fault: "unreachable")
            try h.waitFor("failed call ended", timeout: 30) { try h.emulator.control.call(bad.callId)?.state == "ended" }
            #expect(h.log().contains("media failed: Failed by ICE error"), "the agent's own ICE gave up")
            let good = try h.emulator.control.ring(login: AgentHarness.login, caller: "2001", source: "tone:440")
            try h.waitFor("audio on the next call", timeout: 20) {
                (try h.emulator.control.call(good.callId)?.media?.packetsReceived ?? 0) > 50
            }
            try h.emulator.control.hangup(callId: good.callId)
        }
    }

    @Test func anOutgoingCallCarriesAudioBothWays() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc, emulatorArguments: { _ in ["--media-source", "tone:440"] })
            try h.start(extra: Self.audioFlags(h, answer: "manual"))
            let placed = try h.cli(["call", "1002", "--json", "--socket", h.socketPath])
            #expect(placed.code == 0)
            let callId = try #require(try JSONValue.parse(placed.output)["call_id"]?.stringValue)
            try h.waitFor("media both ways", timeout: 20) {
                let media = try h.emulator.control.call(callId)?.media
                return (media?.packetsReceived ?? 0) > 120 && (media?.packetsSent ?? 0) > 120
            }
            #expect(try h.cli(["hangup", callId, "--socket", h.socketPath]).code == 0)
            try h.waitFor("call gone") { try h.status()["calls"]?.arrayValue?.isEmpty == true }
            let mine = try Self.analyse(h.scratch.file("recordings/\(callId).wav"))
            #expect(abs((mine.frequency ?? 0) - 440) < 5, "\(mine)")
            let theirs = try Self.analyse(try #require(try h.emulator.control.call(callId)?.media?.recording))
            #expect(abs((theirs.frequency ?? 0) - 880) < 5, "\(theirs)")
        }
    }
}
