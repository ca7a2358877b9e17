import AudioCodec
import Foundation
import MainLoop

/// Writes s16le samples to a descriptor (or a FIFO it opens itself) on a background thread, so
/// that `write(_:)` on the audio tick never blocks: samples go into a bounded ring, the oldest
/// dropped and counted when the consumer falls behind.
final class BackgroundPCMWriter: @unchecked Sendable {
    /// Where the bytes go.
    enum Target {
        /// An open descriptor; the writer never closes it.
        case descriptor(Int32)
        /// A FIFO, opened for writing whenever a reader is present and reopened after the reader leaves.
        case fifo(path: String)
    }

    /// Samples taken from the ring per `write(2)` (4 096 bytes: one atomic pipe write).
    private static let chunkSamples = 2_048

    private let condition = NSCondition()
    private let target: Target
    private let wake: WakePipe
    private let name: String
    private let afterWrite: (@Sendable (Int32, Int, Int) -> Void)?
    private var ring: SampleRing
    private var stopping = false
    private var threadDone = false
    private var failure: String?
    private var droppedCount = 0
    private var bytesWritten = 0

    /// Starts the writer thread. `afterWrite(descriptor, totalBefore, totalAfter)` runs on that
    /// thread after every chunk written, with the byte totals (the WAV sink refreshes its header).
    init(target: Target, capacity: Int, name: String, afterWrite: (@Sendable (Int32, Int, Int) -> Void)? = nil) throws {
        self.target = target
        self.name = name
        self.afterWrite = afterWrite
        ring = SampleRing(capacity: max(capacity, 2 * Self.chunkSamples))
        wake = try WakePipe()
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Samples dropped because the ring was full.
    var droppedSamples: Int { condition.withLock { droppedCount } }
    /// Bytes handed to the kernel so far.
    var totalBytesWritten: Int { condition.withLock { bytesWritten } }

    /// Queues samples; throws once the writer has failed or been stopped.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try condition.withLock {
            if let failure { throw AudioIOError.sinkFailed(failure) }
            guard !stopping else { throw AudioIOError.closed }
            droppedCount += ring.append(samples)
            condition.signal()
        }
    }

    /// Stops accepting samples, lets the thread write what is queued for up to `drainTimeout`
    /// seconds, then abandons the rest. Returns true if everything queued was written. Idempotent.
    @discardableResult
    func finish(drainTimeout: Double) -> Bool {
        let drained = condition.withLock {
            stopping = true
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: drainTimeout)
            while !threadDone && condition.wait(until: deadline) {}
            return threadDone && ring.count == 0 && failure == nil
        }
        wake.wake()
        condition.withLock {
            while !threadDone { condition.wait() }
        }
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
            let count = condition.withLock {
                while ring.count == 0 && !stopping { condition.wait() }
                return samples.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            }
            if count == 0 { break }                      // stopping and drained
            samples.withUnsafeBufferPointer { encodeLittleEndianPCM(UnsafeBufferPointer(rebasing: $0[0..<count]), into: &bytes) }
            switch writeAll(bytes, to: descriptor) {
            case .written:
                let total = condition.withLock {
                    bytesWritten += bytes.count
                    return bytesWritten
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
        condition.withLock {
            failure = stopReason
            threadDone = true
            condition.broadcast()
        }
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
            let idle = condition.withLock { stopping && ring.count == 0 }
            if idle { return nil }
            if case .woken = waitFor(-1, events: 0, wake: wake, timeoutMilliseconds: 100) { return nil }
        }
    }
}
