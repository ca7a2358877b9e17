import AudioCodec
import FoundationEssentials
import Glibc
import MainLoop

/// What a pipe-fed source does when its buffer is full.
public enum PCMOverflowPolicy: Sendable, Equatable {
    /// Drop the oldest buffered samples (and count them): bounded latency for live capture.
    case dropOldest
    /// Stop reading until the audio tick consumes some: the producer is throttled to real time
    /// (for producers faster than real time, such as `cat file`).
    case block
}

/// Reads s16le samples from a descriptor on a background thread into a bounded ring, so that
/// `read(into:)` on the audio tick never blocks: it hands out what is buffered and pads with
/// silence, counting an underrun whenever it had to pad before the end of the stream.
///
/// Runs on: its own reader thread for the blocking reads; `read`, the counters and `stop` from
/// any thread. Checked Sendable: what both sides touch is in one `ConditionLock`.
final class BackgroundPCMReader: Sendable {
    /// Samples fetched per `read(2)`.
    private static let chunkSamples = 2_048

    /// What the reader thread and its callers share.
    private struct Shared: Sendable {
        var ring: SampleRing
        var stopping = false
        var threadDone = false
        var ended = false
        var failure: String?
        var underrunCount = 0
        var droppedCount = 0
    }

    private let shared: ConditionLock<Shared>
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let overflow: PCMOverflowPolicy
    private let wake: WakePipe
    private let name: String
    private let onEnd: (@Sendable (String?) -> Void)?

    /// Starts reading `descriptor` at once. `onEnd` runs on the reader thread at end of stream
    /// or on a read error (with its description), not when stopped.
    init(descriptor: Int32, ownsDescriptor: Bool, capacity: Int, overflow: PCMOverflowPolicy, name: String,
         onEnd: (@Sendable (String?) -> Void)? = nil) throws {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.overflow = overflow
        self.name = name
        self.onEnd = onEnd
        shared = ConditionLock(Shared(ring: SampleRing(capacity: max(capacity, 2 * Self.chunkSamples))))
        wake = try WakePipe()
        NamedThread.start(name) { [self] in run() }
    }

    /// Underruns so far: reads that found fewer samples than asked before the end of the stream.
    var underruns: Int { shared.withLock { $0.underrunCount } }
    /// Samples dropped because the ring was full (`.dropOldest` only).
    var droppedSamples: Int { shared.withLock { $0.droppedCount } }
    /// True once the producer has closed its end and every buffered sample has been read.
    var isAtEnd: Bool { shared.withLock { $0.ended && $0.ring.count == 0 } }
    /// The read error that stopped the thread, if any.
    var error: String? { shared.withLock { $0.failure } }

    /// Fills the whole buffer: buffered samples first, silence after. Returns 0 once stopped.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        shared.withLock { state in
            guard !state.stopping else { return 0 }
            let got = state.ring.read(into: buffer)
            if got < buffer.count {
                UnsafeMutableBufferPointer(rebasing: buffer[got...]).update(repeating: 0)
                if !state.ended { state.underrunCount += 1 }
            }
            if overflow == .block { shared.broadcast() }
            return buffer.count
        }
    }

    /// Stops the thread, waits for it, and closes the descriptor if owned. Idempotent.
    func stop() {
        shared.withLock { $0.stopping = true }
        shared.broadcast()
        wake.wake()
        shared.withLock(when: { $0.threadDone }) { _ in }
        if ownsDescriptor { Glibc.close(descriptor) }
    }

    private func run() {
        var bytes = [UInt8](repeating: 0, count: Self.chunkSamples * 2)
        var samples: [Int16] = []
        samples.reserveCapacity(Self.chunkSamples + 1)
        var decoder = LittleEndianPCMDecoder()
        var endReason: String?
        var reachedEnd = false
        loop: while true {
            if overflow == .block {
                let proceed = shared.withLock(when: { $0.stopping || $0.ring.freeSpace >= Self.chunkSamples + 1 }) { !$0.stopping }
                if !proceed { break }
            }
            switch waitFor(descriptor, events: POLLIN, wake: wake) {
            case .woken, .timedOut: break loop
            case .ready: break
            }
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                endReason = AudioIOError.lastSystemError("read").description
                reachedEnd = true
                break
            }
            if count == 0 {
                reachedEnd = true
                break
            }
            bytes.withUnsafeBytes { _ = decoder.decode(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &samples) }
            samples.withUnsafeBufferPointer { chunk in
                shared.withLock { $0.droppedCount += $0.ring.append(chunk) }
            }
        }
        let notify = shared.withLock { [endReason] state in
            state.ended = state.ended || reachedEnd
            state.failure = endReason
            state.threadDone = true
            return reachedEnd && !state.stopping
        }
        shared.broadcast()
        if notify {
            if let endReason { Log.warning("audio", "\(name): \(endReason)") }
            onEnd?(endReason)
        }
    }
}
