import AudioCodec
import Foundation
import MainLoop

/// A live source capturing from an ALSA PCM (`[audio] source = alsa:NAME`) through alsa-lib, not a
/// child process: a capture thread reads a period at a time into a bounded ring (oldest dropped
/// and counted on overflow); `read(into:)` on the audio tick never blocks and pads with silence
/// when starved (counted in `underruns`). Xruns are recovered (`ALSAPCM`).
///
/// Runs on: its own capture thread for the blocking reads; `read` and `close` from any thread
/// (the ring sits behind an `NSCondition`).
public final class ALSASource: AudioSource, @unchecked Sendable {
    /// The PCM name.
    public let device: String
    private let pcm: ALSAPCM
    private let condition = NSCondition()
    private var ring: SampleRing
    private var stopping = false
    private var threadDone = false
    private var underrunCount = 0
    private var droppedCount = 0
    private var failure: String?

    /// Opens `device` for capture at 48 kHz mono and starts capturing. Throws `AudioIOError`.
    public init(device: String, bufferMilliseconds: Int = 200) throws {
        self.device = device
        pcm = try ALSAPCM(name: device, capture: true)
        ring = SampleRing(capacity: max(try bufferCapacity(milliseconds: bufferMilliseconds), 2 * pcm.periodFrames))
        let thread = Thread { [self] in capture() }
        thread.name = "alsa-source"
        thread.start()
    }

    deinit { close() }

    /// Reads that had to pad with silence.
    public var underruns: Int { condition.withLock { underrunCount } }
    /// Samples dropped because the ring was full.
    public var droppedSamples: Int { condition.withLock { droppedCount } }
    /// Frames per ALSA period.
    public var periodFrames: Int { pcm.periodFrames }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        condition.withLock {
            guard !stopping else { return 0 }
            let got = ring.read(into: buffer)
            if got < buffer.count {
                UnsafeMutableBufferPointer(rebasing: buffer[got...]).update(repeating: 0)
                underrunCount += 1
            }
            return buffer.count
        }
    }

    public func close() {
        let first = condition.withLock {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        condition.withLock { while !threadDone { condition.wait() } }
        pcm.close()
    }

    private func capture() {
        var period = [Int16](repeating: 0, count: pcm.periodFrames)
        var pacer = ALSARealTimePacer(slack: pcm.bufferFrames)
        while !condition.withLock({ stopping }) {
            let frames: Int
            do {
                frames = try period.withUnsafeMutableBufferPointer { try pcm.read($0.baseAddress!, frames: $0.count) }
            } catch {
                condition.withLock { failure = "\(error)" }
                Log.warning("audio", "ALSA capture \(device) stopped: \(error); sending silence")
                break
            }
            guard frames > 0 else { continue }
            pacer.moved(frames)
            condition.withLock {
                droppedCount += period.withUnsafeBufferPointer { ring.append(UnsafeBufferPointer(rebasing: $0[0..<frames])) }
            }
        }
        condition.withLock {
            threadDone = true
            condition.broadcast()
        }
    }
}
