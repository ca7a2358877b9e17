import AudioCodec
import FoundationEssentials
import Glibc
import MainLoop

/// Writes s16le samples to a descriptor (or a FIFO it opens itself) on a background thread, so
/// that `write(_:)` on the audio tick never blocks: samples go into a bounded ring, the oldest
/// dropped and counted when the consumer falls behind.
///
/// Runs on: its own writer thread for the blocking writes; `write`, the counters and `finish`
/// from any thread. Checked Sendable: what both sides touch is in one `ConditionLock`.
final class BackgroundPCMWriter: Sendable {
    /// Where the bytes go.
    enum Target: Sendable {
        /// An open descriptor; the writer never closes it.
        case descriptor(Int32)
        /// A FIFO, opened for writing whenever a reader is present and reopened after the reader leaves.
        case fifo(path: String)
    }

    /// Samples taken from the ring per `write(2)` (4 096 bytes: one atomic pipe write).
    private static let chunkSamples = 2_048

    /// What the writer thread and its callers share.
    private struct Shared: Sendable {
        var ring: SampleRing
        var stopping = false
        var threadDone = false
        var failure: String?
        var droppedCount = 0
        var bytesWritten = 0
    }

    private let shared: ConditionLock<Shared>
    private let target: Target
    private let wake: WakePipe
    private let name: String
    private let afterWrite: (@Sendable (Int32, Int, Int) -> Void)?

    /// Starts the writer thread. `afterWrite(descriptor, totalBefore, totalAfter)` runs on that
    /// thread after every chunk written, with the byte totals (the WAV sink refreshes its header).
    init(target: Target, capacity: Int, name: String, afterWrite: (@Sendable (Int32, Int, Int) -> Void)? = nil) throws {
        self.target = target
        self.name = name
        self.afterWrite = afterWrite
        shared = ConditionLock(Shared(ring: SampleRing(capacity: max(capacity, 2 * Self.chunkSamples))))
        wake = try WakePipe()
        NamedThread.start(name) { [self] in run() }
    }

    /// Samples dropped because the ring was full.
    var droppedSamples: Int { shared.withLock { $0.droppedCount } }
    /// Bytes handed to the kernel so far.
    var totalBytesWritten: Int { shared.withLock { $0.bytesWritten } }

    /// Queues samples; throws once the writer has failed or been stopped.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try shared.withLock { state in
            if let failure = state.failure { throw AudioIOError.sinkFailed(failure) }
            guard !state.stopping else { throw AudioIOError.closed }
            state.droppedCount += state.ring.append(samples)
        }
        shared.broadcast()
    }

    /// Stops accepting samples, lets the thread write what is queued for up to `drainTimeout`
    /// seconds, then abandons the rest. Returns true if everything queued was written. Idempotent.
    @discardableResult
    func finish(drainTimeout: Double) -> Bool {
        shared.withLock { $0.stopping = true }
        shared.broadcast()
        let drained = shared.withLock(when: { $0.threadDone }, timeout: drainTimeout) { state in
            state.threadDone && state.ring.count == 0 && state.failure == nil
        }
        wake.wake()
        shared.withLock(when: { $0.threadDone }) { _ in }
        return drained
    }

    private func run() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)     // a vanished reader gives EPIPE, not a fatal SIGPIPE

        var descriptor: Int32 = -1
        if case let .descriptor(fd) = target { descriptor = fd }
        var samples = [Int16](repeating: 0, count: Self.chunkSamples)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.chunkSamples * 2)
        var stopReason: String?

        loop: while true {
            if descriptor < 0, case let .fifo(path) = target {
                guard let opened = openFIFOWhenReaderAppears(path) else { break loop }
                descriptor = opened
            }
            let count = samples.withUnsafeMutableBufferPointer { chunk in
                shared.withLock(when: { $0.ring.count > 0 || $0.stopping }) { $0.ring.read(into: chunk) }
            }
            if count == 0 { break }                      // stopping and drained
            samples.withUnsafeBufferPointer { encodeLittleEndianPCM(UnsafeBufferPointer(rebasing: $0[0..<count]), into: &bytes) }
            switch writeAll(bytes, to: descriptor) {
            case .written:
                let total = shared.withLock { [count = bytes.count] state in
                    state.bytesWritten += count
                    return state.bytesWritten
                }
                afterWrite?(descriptor, total - bytes.count, total)
            case .abandoned:
                break loop
            case let .failed(code, reason):
                if code == EPIPE, case .fifo = target {
                    Log.info("audio", "\(name): the FIFO reader went away; waiting for a new one")
                    Glibc.close(descriptor)
                    descriptor = -1
                    continue
                }
                stopReason = reason
                break loop
            }
        }
        if case .fifo = target, descriptor >= 0 { Glibc.close(descriptor) }
        if let stopReason { Log.warning("audio", "\(name): \(stopReason)") }
        shared.withLock { [stopReason] state in
            state.failure = stopReason
            state.threadDone = true
        }
        shared.broadcast()
    }

    private enum WriteOutcome {
        case written
        case abandoned
        case failed(Int32, String)
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> WriteOutcome {
        var offset = 0
        while offset < bytes.count {
            if case .woken = waitFor(descriptor, events: POLLOUT, wake: wake) { return .abandoned }
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN { continue }
                let reason = code == EPIPE ? "the reading end of the pipe was closed"
                                           : AudioIOError.lastSystemError("write").description
                return .failed(code, reason)
            }
            offset += count
        }
        return .written
    }

    /// Polls every 100 ms until a reader has the FIFO open; nil when woken or stopped with nothing queued.
    private func openFIFOWhenReaderAppears(_ path: String) -> Int32? {
        while true {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            if errno != ENXIO && errno != EINTR {
                Log.warning("audio", "\(name): \(AudioIOError.lastSystemError("open \(path)"))")
            }
            let idle = shared.withLock { $0.stopping && $0.ring.count == 0 }
            if idle { return nil }
            if case .woken = waitFor(-1, events: 0, wake: wake, timeoutMilliseconds: 100) { return nil }
        }
    }
}
