/// One stage of a call's audio processing, between the sound devices (or files, pipes, streams)
/// and the codec: the single place where anything looks at or changes a call's decoded audio.
/// Echo cancellation, noise suppression and gain change the near end's frames; in-audio DTMF
/// detection, a voice bot's stream, speaker gain and the echo canceller's reference observe (or
/// change) the far end's frames as they are handed to the sink.
///
/// A call's stages run in the order given to `CallMedia`, on the media clock thread, once per
/// 20 ms tick each way, 48 kHz mono 16-bit, `AudioPipe.samplesPerFrame` samples (960):
///
/// - `farEndPlayed`: the slot the engine is about to write to the sink (decoded, recovered from
///   FEC, concealed or silence: every tick, also before the first packet and while on hold), so
///   a stage sees exactly the frames the playback device gets. A stage may change the samples in
///   place; later stages and the sink get the changed frame.
/// - `nearEndCaptured`: the frame the source gave this tick (zero-filled when the source gave
///   fewer samples or ended), before mute and before the encoder. A stage may change it in place;
///   mute is applied after the stages, so an echo canceller keeps adapting while muted.
///
/// Runs on: the media clock thread for both calls (one at a time, never concurrently for one
/// call); `close()` from the call's owner after the last tick. A stage must not block: it queues
/// work for its own thread and returns. It must not allocate per frame on a hot path.
public protocol CallAudioStage: AnyObject, Sendable {
    /// The far end's frame about to be played (see the type's documentation).
    func farEndPlayed(_ samples: UnsafeMutableBufferPointer<Int16>)
    /// The near end's frame about to be encoded (see the type's documentation).
    func nearEndCaptured(_ samples: UnsafeMutableBufferPointer<Int16>)
    /// The call's media ended: no further frame comes. Releases what the stage holds. Idempotent.
    func close()
    /// Called once by `CallMedia` when it is created with this stage: where the stage reports
    /// what it finds (an in-audio DTMF key) as the call's `CallMediaEvent`s. Optional.
    func attached(to events: CallAudioStageEvents)
}

/// Where a stage reports what it finds in a call's audio: the call's own `CallMedia.events`
/// stream, in order with the call's other events. `report` does not block and may be called
/// from the media clock thread (it queues the event).
public struct CallAudioStageEvents: Sendable {
    private let sink: @Sendable (CallMediaEvent) -> Void

    /// Events go to `sink` (CallMedia passes its event stream's continuation).
    public init(_ sink: @escaping @Sendable (CallMediaEvent) -> Void) {
        self.sink = sink
    }

    /// Reports `event` on the call's event stream.
    public func report(_ event: CallMediaEvent) { sink(event) }
}

extension CallAudioStage {
    public func farEndPlayed(_ samples: UnsafeMutableBufferPointer<Int16>) {}
    public func nearEndCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) {}
    public func close() {}
    public func attached(to events: CallAudioStageEvents) {}
}
