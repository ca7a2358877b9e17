import Synchronization

/// The send side's controls and counters, shared by the caller's thread (mute, DTMF requests,
/// statistics) and the media clock thread (one read per tick), under one `Mutex`. A class
/// because both sides hold the same instance.
final class CallSendState: Sendable {
    /// What the mutex guards.
    private struct Guarded {
        var muted = false
        var dtmf: DTMFSender?
        var packets = 0
        var bytes = 0
        var rtcp = 0
    }

    private let state = Mutex(Guarded())

    /// Whether the source is replaced by silence.
    var isMuted: Bool {
        get { state.withLock { $0.muted } }
        set { state.withLock { $0.muted = newValue } }
    }

    /// Enables DTMF with the negotiated telephone-event clock (called once media is negotiated).
    func enableDTMF(clockRate: Int) throws(CallMediaError) {
        do {
            let sender = try DTMFSender(DTMFSender.Configuration(clockRate: clockRate))
            state.withLock { $0.dtmf = sender }
        } catch {
            throw .invalidDTMF(error)
        }
    }

    /// Queues digits; false when DTMF is not enabled. Nothing is queued if a digit is invalid.
    func enqueueDTMF(_ digits: String) throws(CallMediaError) -> Bool {
        let outcome: Result<Bool, DTMFError> = state.withLock { state in
            guard state.dtmf != nil else { return .success(false) }
            do throws(DTMFError) {
                try state.dtmf?.enqueue(digits)
            } catch {
                return .failure(error)
            }
            return .success(true)
        }
        switch outcome {
        case .success(let enabled): return enabled
        case .failure(let error): throw .invalidDTMF(error)
        }
    }

    /// The media clock's per-tick read: the mute flag and this tick's telephone-event packets.
    func nextTick() -> (muted: Bool, dtmf: [DTMFPacket]) {
        state.withLock { state in (state.muted, state.dtmf?.nextTick() ?? []) }
    }

    /// Counts a sent RTP packet.
    func countSent(payloadBytes: Int) {
        state.withLock { state in
            state.packets += 1
            state.bytes += payloadBytes
        }
    }

    /// Counts a sent RTCP compound.
    func countRTCP() {
        state.withLock { $0.rtcp += 1 }
    }

    /// RTP packets, payload bytes and RTCP compounds sent so far.
    var sent: (packets: Int, bytes: Int, rtcp: Int) {
        state.withLock { state in (state.packets, state.bytes, state.rtcp) }
    }
}
