import FoundationEssentials
import Glibc

/// A sink writing raw s16le 48 kHz mono to a descriptor, FIFO, file or standard output.
///
/// `write(_:)` queues into a bounded buffer (oldest dropped and counted on overflow); a
/// background thread does the blocking I/O. `close()` waits up to one second for the queue to
/// drain. If the reader of a pipe goes away, the sink fails and `write` throws, except on a FIFO
/// path, where the sink waits for the next reader.
///
/// Runs on: any thread (the audio tick writes, the owner closes). Checked Sendable: it holds only
/// constants and thread-safe parts (`BackgroundPCMWriter`, `OnceFlag`).
public final class RawPCMSink: AudioSink, Sendable {
    /// How long `close()` waits for queued audio to be written.
    public static let drainTimeout = 1.0

    private let writer: BackgroundPCMWriter
    private let descriptor: Int32
    private let closeDescriptor: Bool
    private let closing = OnceFlag()

    /// Writes to `fileDescriptor`, closing it on `close()` only if `closeOnClose`.
    public init(fileDescriptor: Int32, closeOnClose: Bool = false, bufferMilliseconds: Int = 1_000) throws {
        try requireOpenDescriptor(fileDescriptor)
        descriptor = fileDescriptor
        closeDescriptor = closeOnClose
        writer = try BackgroundPCMWriter(target: .descriptor(fileDescriptor),
                                         capacity: bufferCapacity(milliseconds: bufferMilliseconds),
                                         name: "pcm-sink-\(fileDescriptor)")
    }

    /// Writes to a path. A FIFO is opened (in the background) whenever a reader has it open, so
    /// the sink never blocks waiting for one; audio written meanwhile is buffered then dropped
    /// oldest first. Any other path is created or truncated (mode 0644).
    public init(path: String, bufferMilliseconds: Int = 1_000) throws {
        var info = stat()
        let capacity = try bufferCapacity(milliseconds: bufferMilliseconds)
        if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO {
            descriptor = -1
            closeDescriptor = false
            writer = try BackgroundPCMWriter(target: .fifo(path: path), capacity: capacity, name: "pcm-sink-fifo")
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw AudioIOError.lastSystemError("open \(path)") }
            descriptor = fd
            closeDescriptor = true
            do {
                writer = try BackgroundPCMWriter(target: .descriptor(fd), capacity: capacity, name: "pcm-sink-\(fd)")
            } catch {
                Glibc.close(fd)
                throw error
            }
        }
    }

    /// Writes to standard output (left open on `close()`).
    public static func standardOutput(bufferMilliseconds: Int = 1_000) throws -> RawPCMSink {
        try RawPCMSink(fileDescriptor: STDOUT_FILENO, bufferMilliseconds: bufferMilliseconds)
    }

    deinit { try? close() }

    /// Samples dropped because the buffer was full.
    public var droppedSamples: Int { writer.droppedSamples }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws { try writer.write(samples) }

    public func close() throws {
        guard closing.claim() else { return }
        writer.finish(drainTimeout: Self.drainTimeout)
        if closeDescriptor { Glibc.close(descriptor) }
    }
}
