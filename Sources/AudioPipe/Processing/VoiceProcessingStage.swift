import CEchoCancel
import Glibc
import Synchronization

/// A call's voice processing, as one `CallAudioStage`: the speaker gain on what is played (the
/// frame the sink then gets, which is also the echo canceller's reference), and on what is
/// captured the microphone gain, then the engine (echo cancellation, noise suppression, automatic
/// gain, high-pass; `VoiceProcessingEngine`). The reference is aligned with the echo by the delay
/// the devices report (`reportedDelay`: the sink's queue and playback buffer plus the source's
/// capture buffer and queue, in samples), the engine's own estimator covering the rest.
///
/// Also measures what it does, for `status` and metrics (`statistics`): ERLE as the microphone's
/// energy over the output's while the far end talks (smoothed over about a second), the engine's
/// delay estimate and a double-talk flag (the output keeps most of the microphone's energy while
/// the far end talks: the near end talks too, or the canceller has not converged).
///
/// Runs on: the media clock thread for the frames; `statistics`, `update(gains:)` from any thread.
public final class VoiceProcessingStage: CallAudioStage, @unchecked Sendable {  // unchecked: `engine` and the meters are used by the media clock thread only (one tick at a time); shared figures are in Mutexes
    public let settings: VoiceProcessingSettings
    private let engine: VoiceProcessingEngine?
    private let reportedDelay: @Sendable () -> Int
    private let gains: Mutex<(mic: Float, speaker: Float)>
    private let published = Mutex(VoiceProcessingStatistics())
    private var meter = EchoMeter()

    /// Makes the stage; the engine's library is opened now (the first call that needs it).
    /// Throws when the engine cannot run: the caller goes on without it (and says so).
    public init(settings: VoiceProcessingSettings, reportedDelay: @escaping @Sendable () -> Int = { 0 }) throws(VoiceProcessingError) {
        self.settings = settings
        self.reportedDelay = reportedDelay
        engine = settings.needsEngine ? try VoiceProcessingEngine(settings) : nil
        gains = Mutex((Self.linear(settings.micGainDb), Self.linear(settings.speakerGainDb)))
        published.withLock {
            $0.engine = settings.needsEngine ? settings.engine.rawValue : nil
            $0.echoCancel = settings.echoCancel
        }
    }

    /// Changes the fixed gains of a running call (a config reload).
    public func update(micGainDb: Double, speakerGainDb: Double) {
        gains.withLock { $0 = (Self.linear(micGainDb), Self.linear(speakerGainDb)) }
    }

    /// The figures so far (any thread).
    public var statistics: VoiceProcessingStatistics { published.withLock { $0 } }

    public func farEndPlayed(_ samples: UnsafeMutableBufferPointer<Int16>) {
        let gain = gains.withLock { $0.speaker }
        if gain != 1 { Self.apply(gain, to: samples) }
        let block = VoiceProcessingEngine.blockSamples
        var offset = 0
        while offset + block <= samples.count {
            let base = samples.baseAddress! + offset
            meter.far(UnsafeBufferPointer(start: base, count: block))
            engine?.far(base)
            offset += block
        }
    }

    public func nearEndCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) {
        let gain = gains.withLock { $0.mic }
        if gain != 1 { Self.apply(gain, to: samples) }
        guard let engine else { return }
        let delay = max(0, reportedDelay())
        let block = VoiceProcessingEngine.blockSamples
        var offset = 0
        var failed = false
        while offset + block <= samples.count {
            let base = samples.baseAddress! + offset
            let before = EchoMeter.energy(UnsafeBufferPointer(start: base, count: block))
            if engine.near(base, reportedDelay: delay) != 0 { failed = true }
            meter.near(before: before, after: EchoMeter.energy(UnsafeBufferPointer(start: base, count: block)))
            offset += block
        }
        meter.ticks += 1
        // The engine's own figures cost a few calls: once a second is enough for status.
        if meter.ticks % 50 == 0 || failed {
            let stats = settings.echoCancel ? engine.statistics() : cec_stats_none
            let snapshot = meter
            published.withLock { figures in
                figures.reportedDelayMs = Double(delay) * 1000 / Double(AudioPipe.sampleRate)
                figures.engineDelayMs = stats.engine_delay_ms >= 0 ? Int(stats.engine_delay_ms) : nil
                figures.engineErleDb = stats.erle_db.isFinite && stats.erle_db > -99 ? stats.erle_db : nil
                figures.erleDb = snapshot.erleDb
                figures.doubleTalk = snapshot.doubleTalk
                figures.farEndActive = snapshot.farActive
                figures.blocks = snapshot.blocks
                if failed { figures.engineErrors += 1 }
            }
        }
    }

    private static func linear(_ db: Double) -> Float { db == 0 ? 1 : Float(pow(10, db / 20)) }

    private static func apply(_ gain: Float, to samples: UnsafeMutableBufferPointer<Int16>) {
        for i in samples.indices {
            samples[i] = Int16(clamping: Int((Float(samples[i]) * gain).rounded()))
        }
    }
}

private let cec_stats_none = VoiceProcessingEngine.noStatistics

/// What `VoiceProcessingStage` reports (`status`, metrics).
public struct VoiceProcessingStatistics: Sendable, Equatable {
    /// The engine in use (`webrtc`, `speex`), nil when only gains apply.
    public var engine: String?
    public var echoCancel = false
    /// The echo path delay the devices report (taken off before the engine), ms.
    public var reportedDelayMs = 0.0
    /// The delay the engine estimated on top of it (webrtc), ms.
    public var engineDelayMs: Int?
    /// ERLE measured by the stage (microphone energy over output energy while the far end talks), dB.
    public var erleDb: Double?
    /// The engine's own ERLE estimate (webrtc), dB.
    public var engineErleDb: Double?
    /// The output kept most of the microphone's energy while the far end talked (last second).
    public var doubleTalk = false
    /// The far end talked within the last half second.
    public var farEndActive = false
    /// 10 ms blocks processed.
    public var blocks = 0
    /// Blocks the engine refused (passed through unprocessed).
    public var engineErrors = 0

    public init() {}
}
