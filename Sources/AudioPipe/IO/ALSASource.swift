import AudioCodec
import FoundationEssentials
import Glibc
import MainLoop

/// A live source capturing from an ALSA PCM (`[audio] source = alsa:NAME`) through alsa-lib, not a
/// child process: a capture thread reads a period at a time into a bounded ring (oldest dropped
/// and counted on overflow); `read(into:)` on the audio tick never blocks and pads with silence
/// when starved (counted in `underruns`). Xruns are recovered (`ALSAPCM`).
///
/// Runs on: its own capture thread for the blocking reads; `read` and `close` from any thread.
/// Checked Sendable: the ring and flags are in one `ConditionLock`.
public final class ALSASource: AudioSource, AudioDeviceDelay, Sendable {
    /// The PCM name.
    public let device: String
    private let pcm: ALSAPCM

    /// What the capture thread and its callers share.
    private struct Shared: Sendable {
        var ring: SampleRing
        var stopping = false
        var threadDone = false
        var underrunCount = 0
        var droppedCount = 0
        var failure: String?
        var deviceDelay = 0
    }

    private let shared: ConditionLock<Shared>

    /// Opens `device` for capture at 48 kHz mono and starts capturing. Throws `AudioIOError`.
    public init(device: String, bufferMilliseconds: Int = 200) throws {
        self.device = device
        pcm = try ALSAPCM(name: device, capture: true)
        shared = ConditionLock(Shared(ring: SampleRing(capacity: max(try bufferCapacity(milliseconds: bufferMilliseconds), 2 * pcm.periodFrames))))
        NamedThread.start("alsa-source") { [self] in capture() }
    }

    deinit { close() }

    /// Reads that had to pad with silence.
    public var underruns: Int { shared.withLock { $0.underrunCount } }
    /// Samples dropped because the ring was full.
    public var droppedSamples: Int { shared.withLock { $0.droppedCount } }
    /// Frames between the microphone and `read`: the ring plus what the device held unread as of
    /// the last period read (the capture thread asks the device).
    public var delayFrames: Int { shared.withLock { $0.ring.count + $0.deviceDelay } }
    /// Frames per ALSA period.
    public var periodFrames: Int { pcm.periodFrames }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        shared.withLock { state in
            guard !state.stopping else { return 0 }
            let got = state.ring.read(into: buffer)
            if got < buffer.count {
                UnsafeMutableBufferPointer(rebasing: buffer[got...]).update(repeating: 0)
                state.underrunCount += 1
            }
            return buffer.count
        }
    }

    public func close() {
        let first = shared.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        shared.withLock(when: { $0.threadDone }) { _ in }
        pcm.close()
    }

    private func capture() {
        var period = [Int16](repeating: 0, count: pcm.periodFrames)
        var pacer = ALSARealTimePacer(slack: pcm.bufferFrames)
        while !shared.withLock({ $0.stopping }) {
            let frames: Int
            do {
                frames = try period.withUnsafeMutableBufferPointer { try pcm.read($0.baseAddress!, frames: $0.count) }
            } catch {
                shared.withLock { [reason = "\(error)"] in $0.failure = reason }
                Log.warning("audio", "ALSA capture \(device) stopped: \(error); sending silence")
                break
            }
            guard frames > 0 else { continue }
            let delay = pcm.delay()
            pacer.moved(frames)
            period.withUnsafeBufferPointer { chunk in
                shared.withLock {
                    $0.droppedCount += $0.ring.append(UnsafeBufferPointer(rebasing: chunk[0..<frames]))
                    if let delay { $0.deviceDelay = delay }
                }
            }
        }
        shared.withLock { $0.threadDone = true }
        shared.broadcast()
    }
}
