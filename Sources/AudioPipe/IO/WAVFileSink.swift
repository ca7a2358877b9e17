import FoundationEssentials
import Glibc

/// Records 48 kHz mono 16-bit PCM to a WAV file at a path chosen by the caller.
///
/// `write` queues samples for a background writer thread. The header's sizes are rewritten after
/// every second of audio and on `close()`, so a process that is killed leaves a playable file
/// whose header is at most one second behind its data (players ignore the surplus). `close()`
/// waits up to five seconds for queued audio to reach the file.
///
/// Runs on: any thread (the audio tick writes, the owner closes); the header is refreshed on the
/// writer thread. Checked Sendable: it holds only constants and thread-safe parts.
public final class WAVFileSink: AudioSink, Sendable {
    /// Bytes of audio between header refreshes: one second.
    public static let headerRefreshBytes = AudioPipe.sampleRate * 2

    /// The file being written.
    public let path: String
    private let descriptor: Int32
    private let writer: BackgroundPCMWriter
    private let closing = OnceFlag()

    /// Creates (or truncates) `path` with mode 0644 and writes a provisional header.
    public init(path: String, bufferMilliseconds: Int = 2_000) throws {
        self.path = path
        let capacity = try bufferCapacity(milliseconds: bufferMilliseconds)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AudioIOError.lastSystemError("open \(path)") }
        descriptor = fd
        do {
            try Self.writeHeader(fd, dataBytes: 0)
            guard lseek(fd, 44, SEEK_SET) == 44 else { throw AudioIOError.lastSystemError("lseek \(path)") }
            writer = try BackgroundPCMWriter(target: .descriptor(fd), capacity: capacity, name: "wav-sink") { fd, before, after in
                if before / Self.headerRefreshBytes != after / Self.headerRefreshBytes {   // crossed a second
                    try? Self.writeHeader(fd, dataBytes: after)
                }
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { try? close() }

    /// Samples dropped because the disk fell more than the buffer behind.
    public var droppedSamples: Int { writer.droppedSamples }
    /// Samples written to the file so far.
    public var samplesWritten: Int { writer.totalBytesWritten / 2 }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws { try writer.write(samples) }

    /// Finishes the file: writes what is queued, the final header, and closes it.
    public func close() throws {
        guard closing.claim() else { return }
        writer.finish(drainTimeout: 5)
        defer { Glibc.close(descriptor) }
        try Self.writeHeader(descriptor, dataBytes: writer.totalBytesWritten)
    }

    /// Writes the 44-byte header at offset 0 without moving the file offset.
    private static func writeHeader(_ fd: Int32, dataBytes: Int) throws {
        let header = WAVFormat.internalFormat.header(dataBytes: dataBytes)
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw AudioIOError.lastSystemError("write WAV header") }
    }
}
