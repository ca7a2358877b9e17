import Foundation

/// The send side's controls and counters, shared by the caller's thread (mute, DTMF requests,
/// statistics) and the audio thread, under one lock.
final class CallSendState: @unchecked Sendable {
    private let lock = NSLock()
    private var muted = false
    private var dtmf: DTMFSender?
    private var packets = 0
    private var bytes = 0
    private var rtcp = 0

    /// Whether the source is replaced by silence.
    var isMuted: Bool {
        get { lock.withLock { muted } }
        set { lock.withLock { muted = newValue } }
    }

    /// Enables DTMF with the negotiated telephone-event clock (called once media is negotiated).
    func enableDTMF(clockRate: Int) throws(CallMediaError) {
        do {
            let sender = try DTMFSender(DTMFSender.Configuration(clockRate: clockRate))
            lock.withLock { dtmf = sender }
        } catch {
            throw .invalidDTMF(error)
        }
    }

    /// Queues digits; false when DTMF is not enabled. Nothing is queued if a digit is invalid.
    func enqueueDTMF(_ digits: String) throws(CallMediaError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard dtmf != nil else { return false }
        do {
            try dtmf?.enqueue(digits)
        } catch {
            throw .invalidDTMF(error)
        }
        return true
    }

    /// The audio thread's per-tick read: the mute flag and this tick's telephone-event packets.
    func nextTick() -> (muted: Bool, dtmf: [DTMFPacket]) {
        lock.withLock { (muted, dtmf?.nextTick() ?? []) }
    }

    /// Counts a sent RTP packet.
    func countSent(payloadBytes: Int) {
        lock.withLock {
            packets += 1
            bytes += payloadBytes
        }
    }

    /// Counts a sent RTCP compound.
    func countRTCP() {
        lock.withLock { rtcp += 1 }
    }

    /// RTP packets, payload bytes and RTCP compounds sent so far.
    var sent: (packets: Int, bytes: Int, rtcp: Int) {
        lock.withLock { (packets, bytes, rtcp) }
    }
}
