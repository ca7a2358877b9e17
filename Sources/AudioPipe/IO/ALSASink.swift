import AudioCodec
import FoundationEssentials
import Glibc
import MainLoop

/// A sink playing to an ALSA PCM (`[audio] sink = alsa:NAME`) through alsa-lib: `write` queues
/// samples in a bounded ring (oldest dropped and counted on overflow) and never blocks; a playback
/// thread writes one period at a time, padding with silence when the call sends nothing, so the
/// device never starves into an xrun (any xrun is recovered by `ALSAPCM`).
///
/// Runs on: its own playback thread for the blocking writes; `write` and `close` from any thread.
/// Checked Sendable: the ring and flags are in one `ConditionLock`.
public final class ALSASink: AudioSink, AudioDeviceDelay, Sendable {
    /// The PCM name.
    public let device: String
    private let pcm: ALSAPCM

    /// What the playback thread and its callers share.
    private struct Shared: Sendable {
        var ring: SampleRing
        var closed = false
        var threadDone = false
        var droppedCount = 0
        var failure: String?
        var deviceDelay = 0
    }

    private let shared: ConditionLock<Shared>

    /// Opens `device` for playback at 48 kHz mono and starts the playback thread.
    public init(device: String, bufferMilliseconds: Int = 200) throws {
        self.device = device
        pcm = try ALSAPCM(name: device, capture: false)
        shared = ConditionLock(Shared(ring: SampleRing(capacity: max(try bufferCapacity(milliseconds: bufferMilliseconds), 2 * pcm.periodFrames))))
        NamedThread.start("alsa-sink") { [self] in play() }
    }

    deinit { try? close() }

    /// Samples dropped because the ring was full.
    public var droppedSamples: Int { shared.withLock { $0.droppedCount } }

    /// Frames between `write` and the loudspeaker: the ring plus the device's delay as of the last
    /// period written (the playback thread asks the device; no call crosses threads on the PCM).
    public var delayFrames: Int { shared.withLock { $0.ring.count + $0.deviceDelay } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try shared.withLock { state in
            if let failure = state.failure { throw AudioIOError.sinkFailed(failure) }
            guard !state.closed else { throw AudioIOError.closed }
            state.droppedCount += state.ring.append(samples)
        }
    }

    /// Plays what is queued, lets the device drain, and closes it. Idempotent.
    public func close() throws {
        let first = shared.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        shared.withLock(when: { $0.threadDone }) { _ in }
        pcm.drain()
        pcm.close()
    }

    private func play() {
        var period = [Int16](repeating: 0, count: pcm.periodFrames)
        var pacer = ALSARealTimePacer(slack: pcm.bufferFrames)
        while true {
            let (count, last) = period.withUnsafeMutableBufferPointer { chunk in
                shared.withLock { state in
                    let got = state.ring.read(into: chunk)
                    return (got, state.closed && state.ring.count == 0)
                }
            }
            if last && count == 0 { break }
            if count < period.count { period.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[count...]).update(repeating: 0) } }
            let frames = last ? count : period.count
            var offset = 0
            do {
                while offset < frames {
                    offset += try period.withUnsafeBufferPointer { try pcm.write($0.baseAddress! + offset, frames: frames - offset) }
                }
            } catch {
                shared.withLock { [reason = "\(error)"] in $0.failure = reason }
                Log.warning("audio", "ALSA playback \(device) stopped: \(error)")
                break
            }
            if last { break }
            if let delay = pcm.delay() { shared.withLock { $0.deviceDelay = delay } }
            pacer.moved(frames)
        }
        shared.withLock { $0.threadDone = true }
        shared.broadcast()
    }
}
