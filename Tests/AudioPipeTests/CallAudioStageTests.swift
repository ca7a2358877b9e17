@testable import AudioPipe
import Foundation
import Testing

extension CallMediaTests {
    /// `CallAudioStage`: the one place a call's decoded audio is processed or observed.
    @Suite struct AudioStages {
        /// Records what it is shown, and optionally silences one direction in place.
        final class RecordingStage: CallAudioStage, @unchecked Sendable {  // unchecked: the lock guards every field
            private let lock = NSLock()
            private var farEnd: [Int16] = []
            private var nearEnd: [Int16] = []
            private var frameSizes = Set<Int>()
            private var closes = 0
            let silencesFarEnd: Bool
            let silencesNearEnd: Bool

            init(silencesFarEnd: Bool = false, silencesNearEnd: Bool = false) {
                self.silencesFarEnd = silencesFarEnd
                self.silencesNearEnd = silencesNearEnd
            }

            func farEndPlayed(_ samples: UnsafeMutableBufferPointer<Int16>) {
                lock.withLock {
                    farEnd.append(contentsOf: samples)
                    frameSizes.insert(samples.count)
                }
                if silencesFarEnd { samples.update(repeating: 0) }
            }

            func nearEndCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) {
                lock.withLock {
                    nearEnd.append(contentsOf: samples)
                    frameSizes.insert(samples.count)
                }
                if silencesNearEnd { samples.update(repeating: 0) }
            }

            func close() { lock.withLock { closes += 1 } }

            var seen: (farEnd: [Int16], nearEnd: [Int16], frameSizes: Set<Int>, closes: Int) {
                lock.withLock { (farEnd, nearEnd, frameSizes, closes) }
            }
        }

        @Test("Stages see both directions in order, their changes are what the sink and the far end get, and close once")
        func stagesSeeAndChangeBothDirections() async throws {
            let first = RecordingStage(silencesFarEnd: true, silencesNearEnd: true)
            let second = RecordingStage()
            // The offerer sends 440 Hz, the answerer (with the stages) 880 Hz.
            let pair = try await CallPair.connect(answererStages: [first, second])
            defer { pair.close() }
            #expect(await pair.answererLog.wait(for: .firstAudioDecoded))
            try await Task.sleep(nanoseconds: 1_500_000_000)
            pair.close()
            #expect(await pair.answererLog.wait(for: .closed))

            let a = first.seen
            let b = second.seen
            #expect(a.frameSizes == [AudioPipe.samplesPerFrame] && b.frameSizes == [AudioPipe.samplesPerFrame])
            // The first stage heard the far end's tone and the answerer's own source.
            #expect(ToneReport(a.farEnd, expected: 440).hasFrequency(440), "\(ToneReport(a.farEnd, expected: 440))")
            #expect(ToneReport(a.nearEnd, expected: 880).hasFrequency(880), "\(ToneReport(a.nearEnd, expected: 880))")
            // The second stage got the first one's output (silence both ways), so did the sink and the far end.
            #expect(b.farEnd.count == a.farEnd.count && b.nearEnd.count == a.nearEnd.count)
            #expect(b.farEnd.allSatisfy { $0 == 0 } && b.nearEnd.allSatisfy { $0 == 0 })
            #expect(pair.answererSink.samples.allSatisfy { $0 == 0 })
            #expect(ToneReport(pair.offererSink.samples, expected: 880).rmsDBFS < -60)
            // Every tick, both ways (one frame each way per 20 ms).
            #expect(a.farEnd.count >= 50 * AudioPipe.samplesPerFrame && a.nearEnd.count >= 50 * AudioPipe.samplesPerFrame)
            #expect(a.closes == 1 && b.closes == 1)
        }
    }
}
