import CEchoCancel

/// One engine instance of Sources/CEchoCancel (webrtc-audio-processing or speexdsp) for one call:
/// 10 ms blocks in, the far ring and the reference alignment in C. The library is opened at the
/// first engine made (dlopen), never at start.
///
/// Runs on: one thread at a time (the media clock thread); `deinit` releases the engine.
final class VoiceProcessingEngine: @unchecked Sendable {  // unchecked: wraps a cec_engine* (C state) used by one thread at a time
    static let blockSamples = Int(CEC_BLOCK)
    private let handle: OpaquePointer

    /// Opens the engine's library if needed and makes an engine, or throws with the loader's reason.
    init(_ settings: VoiceProcessingSettings) throws(VoiceProcessingError) {
        let kind = settings.engine.cValue
        guard cec_library_load(kind) != 0 else {
            throw .libraryUnavailable(engine: settings.engine.rawValue,
                                      reason: cec_library_error(kind).map { String(cString: $0) } ?? "unknown reason")
        }
        var c = cec_settings(engine: kind, echo_cancel: settings.echoCancel ? 1 : 0,
                             noise_suppression: settings.noiseSuppression ? 1 : 0, auto_gain: settings.autoGain ? 1 : 0,
                             high_pass: settings.highPass ? 1 : 0, tail_ms: Int32(settings.speexTailMs))
        guard let handle = cec_create(&c) else { throw .engineRefused(engine: settings.engine.rawValue) }
        self.handle = handle
    }

    deinit { cec_destroy(handle) }

    /// True once the engine's library has been loaded in this process (never loads it).
    static func isLoaded(_ engine: VoiceProcessingSettings.Engine) -> Bool { cec_library_is_loaded(engine.cValue) != 0 }

    /// One played block of `blockSamples`.
    func far(_ block: UnsafePointer<Int16>) { cec_far(handle, block) }

    /// One captured block of `blockSamples`, processed in place; `reportedDelay` in samples.
    /// Returns the engine's status (0: processed; negative: the block is left as it came).
    func near(_ block: UnsafeMutablePointer<Int16>, reportedDelay: Int) -> Int32 {
        cec_near(handle, block, Int32(clamping: reportedDelay))
    }

    /// The engine's own figures (NaN / -1 where it has none).
    func statistics() -> cec_stats {
        var stats = cec_stats()
        cec_stats_get(handle, &stats)
        return stats
    }
}

/// Why voice processing could not start (the call goes on without it).
public enum VoiceProcessingError: Error, Equatable, CustomStringConvertible {
    case libraryUnavailable(engine: String, reason: String)
    case engineRefused(engine: String)

    public var description: String {
        switch self {
        case .libraryUnavailable(let engine, let reason): "the \(engine) voice processing library cannot be loaded: \(reason)"
        case .engineRefused(let engine): "the \(engine) voice processing engine refused its settings"
        }
    }
}

extension VoiceProcessingSettings.Engine {
    var cValue: Int32 {
        switch self {
        case .webrtc: Int32(CEC_ENGINE_WEBRTC)
        case .speex: Int32(CEC_ENGINE_SPEEX)
        }
    }
}

extension VoiceProcessingEngine {
    /// Figures of an engine that has none.
    static var noStatistics: cec_stats { cec_stats(erle_db: .nan, engine_delay_ms: -1, echo_present: -1) }
}
