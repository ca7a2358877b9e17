import AudioPipe
import AudioSDP
import DecimalText
import FoundationEssentials
import Synchronization
import MainLoop
#if canImport(Glibc)
import Glibc
#endif

/// A loopback call between two `CallMedia` in this process (used by `make bench`).
public enum CallMediaBenchmark {
    /// What one benchmark call measured.
    public struct Result: Sendable, Equatable, CustomStringConvertible {
        /// Seconds from the answerer's `answer(offer:)` call to its first decoded frame.
        public var answerToFirstAudio: Double?
        /// Seconds from the offerer's `applyAnswer(_:)` call to its first decoded frame.
        public var applyAnswerToFirstAudio: Double?
        /// RTP packets the offerer sent and the answerer received.
        public var offererSent: Int
        /// RTP packets the answerer received.
        public var answererReceived: Int
        /// RTP packets the answerer sent.
        public var answererSent: Int
        /// RTP packets the offerer received.
        public var offererReceived: Int
        /// Seconds the media ran (from both sides connected to the end).
        public var mediaSeconds: Double
        /// CPU seconds (user + system) the whole process used while the media ran (getrusage).
        public var cpuSeconds: Double

        /// CPU use while media ran, as a percentage of one core.
        public var cpuPercentOfOneCore: Double { mediaSeconds > 0 ? 100 * cpuSeconds / mediaSeconds : 0 }

        public var description: String {
            let first = answerToFirstAudio.map { "\(DecimalText.fixed($0 * 1000, decimals: 1)) ms" } ?? "none"
            return "answer->first audio \(first), packets \(offererSent)->\(answererReceived) / "
                + "\(answererSent)->\(offererReceived), \(DecimalText.fixed(mediaSeconds, decimals: 2)) s media, "
                + "CPU \(DecimalText.fixed(cpuSeconds, decimals: 3)) s (\(DecimalText.fixed(cpuPercentOfOneCore, decimals: 1)) % of a core)"
        }
    }

    /// Why a benchmark call could not run.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Runs a call of `seconds` seconds between two `CallMedia` over ICE on 127.0.0.1 (Opus,
    /// 440 Hz and 880 Hz tones into null sinks) and measures it. Throws `Failure` when the call
    /// does not connect within 10 s.
    public static func run(seconds: Double, configuration: CallMediaConfiguration? = nil) async throws -> Result {
        var settings = configuration ?? CallMediaConfiguration(ice: ICEConfiguration(controlling: true, localAddresses: ["127.0.0.1"]))
        settings.codecs = settings.codecs.isEmpty ? [.opus] : settings.codecs
        let offerer = CallMedia(configuration: settings, source: ToneSource(frequency: 440), sink: NullSink())
        let answerer = CallMedia(configuration: settings, source: ToneSource(frequency: 880), sink: NullSink())
        defer {
            offerer.close()
            answerer.close()
        }
        let offererAudio = FirstAudioWatch(offerer)
        let answererAudio = FirstAudioWatch(answerer)
        let offer = try await offerer.makeOffer()
        let answer = try await answerer.answer(offer: offer)
        try await offerer.applyAnswer(answer)
        guard await offererAudio.wait(timeout: 10), await answererAudio.wait(timeout: 10) else {
            throw Failure(description: "the loopback call did not reach audio within 10 s")
        }
        let cpuBefore = processCPUSeconds()
        let wallBefore = MonotonicTime.now()
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
        let cpu = processCPUSeconds() - cpuBefore
        let wall = MonotonicTime.now() - wallBefore
        let offered = offerer.statistics()
        let answered = answerer.statistics()
        return Result(answerToFirstAudio: answered.firstAudioLatency, applyAnswerToFirstAudio: offered.firstAudioLatency,
                      offererSent: offered.packetsSent, answererReceived: answered.packetsReceived,
                      answererSent: answered.packetsSent, offererReceived: offered.packetsReceived,
                      mediaSeconds: wall, cpuSeconds: cpu)
    }

    /// User plus system CPU seconds of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// Watches a call's events for `.firstAudioDecoded` (or a failure).
private final class FirstAudioWatch: Sendable {
    private let outcome = Mutex<Bool?>(nil)

    init(_ call: CallMedia) {
        let events = call.events
        Task { [self] in
            for await event in events {
                switch event {
                case .firstAudioDecoded: finish(true)
                case .failed, .closed: finish(false)
                default: continue
                }
            }
            finish(false)
        }
    }

    private func finish(_ value: Bool) {
        outcome.withLock { if $0 == nil { $0 = value } }
    }

    /// True once the first frame was decoded; false on failure, close or after `timeout` seconds.
    func wait(timeout: Double) async -> Bool {
        let deadline = MonotonicTime.now() + timeout
        while MonotonicTime.now() < deadline {
            if let outcome = outcome.withLock({ $0 }) { return outcome }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return false
    }
}
