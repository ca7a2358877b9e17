import AudioCodec
import Foundation
import MainLoop

/// A sink playing to an ALSA PCM (`[audio] sink = alsa:NAME`) through alsa-lib: `write` queues
/// samples in a bounded ring (oldest dropped and counted on overflow) and never blocks; a playback
/// thread writes one period at a time, padding with silence when the call sends nothing, so the
/// device never starves into an xrun (any xrun is recovered by `ALSAPCM`).
///
/// Runs on: its own playback thread for the blocking writes; `write` and `close` from any thread.
public final class ALSASink: AudioSink, @unchecked Sendable {
    /// The PCM name.
    public let device: String
    private let pcm: ALSAPCM
    private let condition = NSCondition()
    private var ring: SampleRing
    private var closed = false
    private var threadDone = false
    private var droppedCount = 0
    private var failure: String?

    /// Opens `device` for playback at 48 kHz mono and starts the playback thread.
    public init(device: String, bufferMilliseconds: Int = 200) throws {
        self.device = device
        pcm = try ALSAPCM(name: device, capture: false)
        ring = SampleRing(capacity: max(try bufferCapacity(milliseconds: bufferMilliseconds), 2 * pcm.periodFrames))
        let thread = Thread { [self] in play() }
        thread.name = "alsa-sink"
        thread.start()
    }

    deinit { try? close() }

    /// Samples dropped because the ring was full.
    public var droppedSamples: Int { condition.withLock { droppedCount } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try condition.withLock {
            if let failure { throw AudioIOError.sinkFailed(failure) }
            guard !closed else { throw AudioIOError.closed }
            droppedCount += ring.append(samples)
        }
    }

    /// Plays what is queued, lets the device drain, and closes it. Idempotent.
    public func close() throws {
        let first = condition.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        condition.withLock { while !threadDone { condition.wait() } }
        pcm.drain()
        pcm.close()
    }

    private func play() {
        var period = [Int16](repeating: 0, count: pcm.periodFrames)
        var pacer = ALSARealTimePacer(slack: pcm.bufferFrames)
        while true {
            let (count, last) = condition.withLock {
                let got = period.withUnsafeMutableBufferPointer { ring.read(into: $0) }
                return (got, closed && ring.count == 0)
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
                condition.withLock { failure = "\(error)" }
                Log.warning("audio", "ALSA playback \(device) stopped: \(error)")
                break
            }
            if last { break }
            pacer.moved(frames)
        }
        condition.withLock {
            threadDone = true
            condition.broadcast()
        }
    }
}
