import FoundationEssentials
import Glibc
import Synchronization

/// A self-pipe that lets one thread interrupt another's `poll(2)`: include `readDescriptor` in
/// the poll set and call `wake()`. Both ends are non-blocking and close-on-exec.
///
/// Runs on: any thread (`wake()` is one `write(2)`); checked Sendable, as it holds only the two
/// descriptors, which never change.
final class WakePipe: Sendable {
    /// The end to poll for readability.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws {
        (readDescriptor, writeDescriptor) = try makePipe(nonBlocking: true)
    }

    deinit {
        Glibc.close(readDescriptor)
        Glibc.close(writeDescriptor)
    }

    /// Makes `readDescriptor` readable (for good: the byte is never drained).
    func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeDescriptor, &byte, 1)
    }
}

/// Held while creating pipes and while spawning children, so that none of our children inherits
/// a pipe end in the moment between `pipe(2)` and `fcntl(FD_CLOEXEC)` (`pipe2` is not visible
/// through Swift's Glibc module).
let descriptorCreationLock = Mutex(())

/// Creates a close-on-exec pipe, optionally with both ends non-blocking.
func makePipe(nonBlocking: Bool) throws -> (read: Int32, write: Int32) {
    try descriptorCreationLock.withLock { (_) throws(AudioIOError) in
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw AudioIOError.lastSystemError("pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            if nonBlocking { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        }
        return (ends[0], ends[1])
    }
}

/// What `waitFor` saw.
enum PollOutcome {
    /// The descriptor is ready (or has hung up or failed: the next read/write says which).
    case ready
    /// The wake pipe fired.
    case woken
    /// The timeout passed.
    case timedOut
}

/// Waits until `descriptor` is ready for `events` (`POLLIN` or `POLLOUT`), the wake pipe fires,
/// or `timeoutMilliseconds` pass (−1: no timeout). A negative descriptor only waits for the wake
/// pipe or the timeout.
func waitFor(_ descriptor: Int32, events: Int32, wake: WakePipe, timeoutMilliseconds: Int32 = -1) -> PollOutcome {
    var descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: descriptor, events: Int16(events), revents: 0)]
    while true {
        let result = poll(&descriptors, descriptor >= 0 ? 2 : 1, timeoutMilliseconds)
        if result < 0 && errno == EINTR { continue }
        if result == 0 { return .timedOut }
        if descriptors[0].revents != 0 { return .woken }
        return .ready                                   // readiness, POLLHUP/POLLERR, or a poll failure
    }
}

/// Converts little-endian s16 bytes to samples, carrying an odd trailing byte between calls.
struct LittleEndianPCMDecoder {
    private var pendingByte: UInt8?

    /// Appends the samples in `bytes` to `samples` (which is emptied first); returns the count.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into samples: inout [Int16]) -> Int {
        samples.removeAll(keepingCapacity: true)
        var index = 0
        if let low = pendingByte, !bytes.isEmpty {
            samples.append(Int16(bitPattern: UInt16(low) | UInt16(bytes[0]) << 8))
            pendingByte = nil
            index = 1
        }
        while index + 1 < bytes.count {
            samples.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
            index += 2
        }
        if index < bytes.count { pendingByte = bytes[index] }
        return samples.count
    }
}

/// Writes samples as little-endian s16 bytes into `bytes` (emptied first).
func encodeLittleEndianPCM(_ samples: UnsafeBufferPointer<Int16>, into bytes: inout [UInt8]) {
    bytes.removeAll(keepingCapacity: true)
    for sample in samples {
        let value = UInt16(bitPattern: sample)
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
}

/// Throws a clear error unless `descriptor` is an open file descriptor.
func requireOpenDescriptor(_ descriptor: Int32) throws {
    guard fcntl(descriptor, F_GETFD) != -1 else { throw AudioIOError.lastSystemError("file descriptor \(descriptor)") }
}

/// The sample capacity for a buffer of `milliseconds` at 48 kHz, at least `minimum`.
func bufferCapacity(milliseconds: Int, minimum: Int = 4_096) throws -> Int {
    guard milliseconds > 0 else { throw AudioIOError.invalidArgument("buffer length must be positive, got \(milliseconds) ms") }
    return max(minimum, milliseconds * AudioPipe.sampleRate / 1_000)
}
