import Synchronization

/// The in-audio DTMF detector as one of a call's audio stages: it observes the far end's frames
/// (never changes them) and reports each key as `CallMediaEvent.dtmfToneDetected` on the call's
/// events. Runs on the media clock thread; no allocation per frame, no blocking (the event is
/// queued on the call's stream).
public final class DTMFToneDetectorStage: CallAudioStage {
    private struct State {
        var detector: DTMFToneDetector
        var events: CallAudioStageEvents?
        var closed = false
    }

    private let state: Mutex<State>

    /// Creates the stage with the detector's thresholds.
    public init(_ configuration: DTMFToneDetector.Configuration = DTMFToneDetector.Configuration()) {
        state = Mutex(State(detector: DTMFToneDetector(configuration)))
    }

    public func attached(to events: CallAudioStageEvents) {
        state.withLock { $0.events = events }
    }

    public func farEndPlayed(_ samples: UnsafeMutableBufferPointer<Int16>) {
        state.withLock { state in
            guard !state.closed else { return }
            let events = state.events
            state.detector.process(UnsafeBufferPointer(samples)) { key in
                events?.report(.dtmfToneDetected(key))
            }
        }
    }

    /// The number of keys reported so far.
    public var keysReported: Int { state.withLock { $0.detector.reported } }

    public func close() {
        state.withLock { $0.closed = true }
    }
}
