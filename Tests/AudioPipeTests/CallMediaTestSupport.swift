@testable import MediaBenchmarks
@testable import AudioPipe
import Foundation
import Testing

/// All CallMedia suites, run one test at a time: each test runs real-time calls, and the audio
/// checks should not compete with one another for the two cores.
@Suite(.serialized) struct CallMediaTests {}

/// Shared helpers for the CallMedia suites.
enum CallMediaTestSupport {
    /// A loopback-only configuration with RTCP every second or so.
    static func configuration(codecs: [AudioCodecKind] = [.opus, .pcmu, .pcma], connectTimeout: Double = 10,
                              includeCandidates: Bool = true) -> CallMediaConfiguration {
        CallMediaConfiguration(
            ice: ICEConfiguration(controlling: false, localAddresses: ["127.0.0.1"], connectTimeout: connectTimeout),
            includeCandidates: includeCandidates, codecs: codecs, rtcpMinimumInterval: 1)
    }

    /// Replaces the first byte of the SDP's sha-256 fingerprint with a different one.
    static func tamperingFingerprint(_ sdp: String) -> String {
        let marker = "a=fingerprint:sha-256 "
        guard let range = sdp.range(of: marker) else { return sdp }
        let byteEnd = sdp.index(range.upperBound, offsetBy: 2)
        let replacement = sdp[range.upperBound..<byteEnd] == "00" ? "11" : "00"
        return sdp.replacingCharacters(in: range.upperBound..<byteEnd, with: replacement)
    }

    /// Points every `typ host` candidate (and the `m=` port) of `sdp` at `port`.
    static func redirectingCandidates(_ sdp: String, to port: Int) -> String {
        sdp.split(separator: "\r\n", omittingEmptySubsequences: false).map { line -> String in
            var fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if line.hasPrefix("a=candidate:"), fields.count > 5 {
                fields[5] = String(port)
            } else if line.hasPrefix("m=audio "), fields.count > 1 {
                fields[1] = String(port)
            }
            return fields.joined(separator: " ")
        }.joined(separator: "\r\n")
    }

    /// Waits until `condition` holds, polling every 10 ms; false after `timeout` seconds.
    static func wait(timeout: Double, isolation: isolated (any Actor)? = #isolation,
                     until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return true
    }
}

/// Records a call's events (the stream is consumed by a task).
final class CallEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [CallMediaEvent] = []

    init(_ call: CallMedia) {
        let events = call.events
        Task { [self] in
            for await event in events { lock.withLock { list.append(event) } }
        }
    }

    /// The events so far.
    var events: [CallMediaEvent] { lock.withLock { list } }

    /// The `.failed` events so far.
    var failures: [MediaFailure] { events.compactMap { if case .failed(let reason) = $0 { reason } else { nil } } }

    /// The digits of `.dtmfReceived` events so far.
    var digits: String { String(events.compactMap { if case .dtmfReceived(let digit) = $0 { digit } else { nil } }) }

    /// Whether `event` arrives within `timeout` seconds.
    func wait(for event: CallMediaEvent, timeout: Double = 15) async -> Bool {
        await CallMediaTestSupport.wait(timeout: timeout) { events.contains(event) }
    }

    /// The first event `match` accepts, waiting up to `timeout` seconds.
    func first(timeout: Double = 15, where match: @escaping (CallMediaEvent) -> Bool) async -> CallMediaEvent? {
        var found: CallMediaEvent?
        _ = await CallMediaTestSupport.wait(timeout: timeout) {
            found = events.first(where: match)
            return found != nil
        }
        return found
    }
}

/// An in-memory sink keeping everything written to it.
final class ArraySink: AudioSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int16] = []
    private var closed = false

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try lock.withLock {
            guard !closed else { throw AudioIOError.closed }
            stored.append(contentsOf: samples)
        }
    }

    func close() { lock.withLock { closed = true } }

    /// The samples so far.
    var samples: [Int16] { lock.withLock { stored } }
    /// How many samples were written.
    var count: Int { lock.withLock { stored.count } }
    /// Whether `close()` was called.
    var isClosed: Bool { lock.withLock { closed } }
}

/// Pitch, level and tone-to-noise ratio of a recording.
struct ToneReport: CustomStringConvertible {
    let frequency: Double?
    let rmsDBFS: Double
    /// Tone power over the rest of the power, in dB, for each 100 ms block (sorted ascending).
    let blockSNRs: [Double]
    /// The median of `blockSNRs`.
    var snrDB: Double { blockSNRs.isEmpty ? -120 : blockSNRs[blockSNRs.count / 2] }
    /// The SNR that the best quarter of the blocks reach. A broken audio path (wrong codec
    /// framing, byte order, resampling) spoils every block; a heavily loaded machine makes the
    /// jitter buffer stretch and skip, and each phase jump spoils only its own block.
    var cleanSNRDB: Double { blockSNRs.isEmpty ? -120 : blockSNRs[blockSNRs.count * 3 / 4] }

    /// Analyses the `seconds` of `samples` that end `endingBefore` samples before the end.
    init(_ samples: [Int16], expected: Double, seconds: Double = 1, endingBefore: Int = 0) {
        let end = max(0, samples.count - endingBefore)
        let window = Array(samples[max(0, end - Int(seconds * Double(AudioPipe.sampleRate)))..<end])
        let levels = AudioLevels.measure(window)
        frequency = levels.dominantFrequency
        rmsDBFS = levels.rmsDBFS
        let block = AudioPipe.sampleRate / 10
        blockSNRs = stride(from: 0, to: window.count - block + 1, by: block).map { start in
            window[start..<(start + block)].withUnsafeBufferPointer { Self.toneToNoise($0, frequency: expected) }
        }.sorted()
    }

    /// Tone power (Goertzel) over the rest of the power of `samples`, in dB.
    private static func toneToNoise(_ samples: UnsafeBufferPointer<Int16>, frequency: Double) -> Double {
        let tone = 2 * SpectrumAnalysis.goertzelPower(samples, frequency: frequency, sampleRate: AudioPipe.sampleRate)
        let total = samples.reduce(0.0) { $0 + (Double($1) / 32_768) * (Double($1) / 32_768) } / Double(max(1, samples.count))
        return 10 * log10(max(tone, 1e-12) / max(total - tone, 1e-12))
    }

    /// Whether the dominant frequency is within `tolerance` Hz of `expected`.
    func hasFrequency(_ expected: Double, tolerance: Double = 5) -> Bool {
        frequency.map { abs($0 - expected) <= tolerance } ?? false
    }

    var description: String {
        String(format: "%@ Hz, %.1f dBFS, SNR %.1f dB (best quarter %.1f dB)", frequency.map { String(format: "%.1f", $0) } ?? "no pitch",
               rmsDBFS, snrDB, cleanSNRDB)
    }
}

/// Two loopback `CallMedia` in this process: `offerer` makes the offer, `answerer` answers.
struct CallPair {
    let offerer: CallMedia
    let answerer: CallMedia
    let offererLog: CallEventLog
    let answererLog: CallEventLog
    let offererSink: ArraySink
    let answererSink: ArraySink

    /// Creates both calls with tones of `offererTone` and `answererTone` Hz and runs the offer/answer
    /// exchange, passing the offer and answer through the tamper functions on the way.
    static func connect(offerer offererConfiguration: CallMediaConfiguration = CallMediaTestSupport.configuration(),
                        answerer answererConfiguration: CallMediaConfiguration = CallMediaTestSupport.configuration(),
                        offererTone: Double = 440, answererTone: Double = 880,
                        answererStages: [any CallAudioStage] = [],
                        tamperOffer: (String) -> String = { $0 },
                        tamperAnswer: (String) -> String = { $0 }) async throws -> CallPair {
        let offererSink = ArraySink()
        let answererSink = ArraySink()
        let offerer = CallMedia(configuration: offererConfiguration, source: ToneSource(frequency: offererTone), sink: offererSink)
        let answerer = CallMedia(configuration: answererConfiguration, source: ToneSource(frequency: answererTone),
                                 sink: answererSink, stages: answererStages)
        let pair = CallPair(offerer: offerer, answerer: answerer, offererLog: CallEventLog(offerer),
                            answererLog: CallEventLog(answerer), offererSink: offererSink, answererSink: answererSink)
        do {
            let offer = try await offerer.makeOffer()
            let answer = try await answerer.answer(offer: tamperOffer(offer))
            try await offerer.applyAnswer(tamperAnswer(answer))
        } catch {
            pair.close()
            throw error
        }
        return pair
    }

    /// Waits until both sides decoded their first frame.
    func waitForAudio(timeout: Double = 15) async -> Bool {
        let offererHears = await offererLog.wait(for: .firstAudioDecoded, timeout: timeout)
        let answererHears = await answererLog.wait(for: .firstAudioDecoded, timeout: timeout)
        return offererHears && answererHears
    }

    func close() {
        offerer.close()
        answerer.close()
    }
}
