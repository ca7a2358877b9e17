@testable import AudioPipe
import Foundation
import Testing
import TestSupport

extension CallMediaTests {
    /// Calls against a real aiortc 1.4 peer (Tests/Fixtures/media/aiortc_peer.py) on 127.0.0.1.
    @Suite struct Aiortc {
        /// What one interop call produced.
        private struct Outcome {
            let ourRecording: [Int16]
            /// Samples we had recorded when aiortc stopped playing.
            let ourRecordingAtStop: Int
            let theirRecording: [Int16]
            let theirStats: [String: Any]
            let ours: CallMediaStatistics
            let events: [CallMediaEvent]
        }

        @Test("We answer aiortc's offer: 440 Hz reaches us, our 880 Hz reaches aiortc", arguments: [true, false])
        func weAnswer(includeCandidates: Bool) async throws {
            let outcome = try await call(weOffer: false, includeCandidates: includeCandidates)
            check(outcome)
            // Without candidates in our SDP aiortc can only learn our address from our checks.
            let pair = outcome.theirStats["pair"] as? [String: Any]
            let remoteType = (pair?["remote"] as? [String: Any])?["type"] as? String
            #expect(remoteType == (includeCandidates ? "host" : "prflx"), "aiortc pair \(String(describing: pair))")
        }

        @Test("We offer and aiortc answers: 440 Hz reaches us, our 880 Hz reaches aiortc")
        func weOffer() async throws {
            let outcome = try await call(weOffer: true, includeCandidates: true)
            check(outcome)
        }

        /// Runs one call: aiortc plays 440 Hz for 3 s once connected, we play 880 Hz.
        private func call(weOffer: Bool, includeCandidates: Bool) async throws -> Outcome {
            let directory = try TemporaryDirectory(prefix: "callmedia-aiortc")
            let recording = directory.path + "/aiortc.wav"
            let peer = try CallMediaAiortcPeer.start(mode: weOffer ? "answer" : "offer", recording: recording)
            defer { peer.stop() }
            let sink = ArraySink()
            let media = CallMedia(configuration: CallMediaTestSupport.configuration(includeCandidates: includeCandidates),
                                  source: ToneSource(frequency: 880), sink: sink)
            defer { media.close() }
            let log = CallEventLog(media)
            if weOffer {
                try peer.send(["sdp": try await media.makeOffer()])
                let answer = try #require(await peer.event("answer")?["sdp"] as? String, "aiortc: \(peer.stderr)")
                try await media.applyAnswer(answer)
            } else {
                let offer = try #require(await peer.event("offer")?["sdp"] as? String, "aiortc: \(peer.stderr)")
                try peer.send(["sdp": try await media.answer(offer: offer)])
            }
            #expect(await log.wait(for: .firstAudioDecoded, timeout: 20), "events \(log.events), aiortc: \(peer.stderr)")
            let stats = try #require(await peer.event("stats", timeout: 30), "aiortc: \(peer.stderr)")
            let atStop = sink.count
            try #require(stats["event"] as? String == "stats", "aiortc failed: \(stats)")
            let ours = media.statistics()
            media.close()
            return Outcome(ourRecording: sink.samples, ourRecordingAtStop: atStop,
                           theirRecording: try WAVReader.read48kMono(path: recording), theirStats: stats, ours: ours,
                           events: log.events)
        }

        private func check(_ outcome: Outcome) {
            #expect(outcome.events.contains { if case .dtlsConnected = $0 { true } else { false } })
            #expect(!outcome.events.contains { if case .failed = $0 { true } else { false } }, "\(outcome.events)")

            // What we heard from aiortc, in the last second before it stopped.
            let ours = ToneReport(Array(outcome.ourRecording.prefix(outcome.ourRecordingAtStop)), expected: 440,
                                  endingBefore: AudioPipe.sampleRate / 10)
            #expect(ours.hasFrequency(440), "we heard \(ours)")
            #expect(ours.rmsDBFS > -15, "we heard \(ours)")
            #expect(ours.cleanSNRDB > 20, "we heard \(ours)")
            #expect(outcome.ours.codec == .opus)
            #expect(outcome.ours.packetsReceived >= 125, "\(outcome.ours)")  // aiortc sends 3 s: 150 packets
            #expect(outcome.ours.fractionLost < 0.02, "\(outcome.ours)")
            #expect(outcome.ours.packetsDiscarded == 0, "\(outcome.ours)")
            #expect(outcome.ours.firstAudioLatency != nil)

            // What aiortc heard from us: its recording covers its 3 s of playing.
            let theirs = ToneReport(outcome.theirRecording, expected: 880, endingBefore: AudioPipe.sampleRate / 10)
            #expect(theirs.hasFrequency(880), "aiortc heard \(theirs)")
            #expect(theirs.rmsDBFS > -15, "aiortc heard \(theirs)")
            #expect(theirs.cleanSNRDB > 20, "aiortc heard \(theirs)")
            #expect(Double(outcome.theirRecording.count) >= 2.5 * Double(AudioPipe.sampleRate),
                    "aiortc recorded \(outcome.theirRecording.count) samples")
            let received = outcome.theirStats.number("inbound", "packetsReceived") ?? 0
            #expect(received >= 125, "aiortc stats \(outcome.theirStats)")
        }
    }
}
