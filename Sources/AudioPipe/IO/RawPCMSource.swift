import FoundationEssentials
import Glibc

/// A live source of raw s16le 48 kHz mono read from a descriptor, FIFO, file or standard input.
///
/// A background thread reads into a bounded buffer; `read(into:)` never blocks, always fills the
/// frame (silence when starved, counted in `underruns`) and keeps doing so after the producer's
/// end of stream (`isAtEnd`), like every pipe-fed source.
///
/// Runs on: any thread (the audio tick reads, the owner closes). Checked Sendable: it holds only
/// constants and thread-safe parts (`BackgroundPCMReader`, `OnceFlag`).
public final class RawPCMSource: AudioSource, Sendable {
    private let reader: BackgroundPCMReader
    private let closing = OnceFlag()

    /// Reads from `fileDescriptor`, closing it on `close()` only if `closeOnClose`.
    /// The buffer holds `bufferMilliseconds` of audio (default 1 s).
    public init(fileDescriptor: Int32, closeOnClose: Bool = false, bufferMilliseconds: Int = 1_000,
                overflow: PCMOverflowPolicy = .dropOldest) throws {
        try requireOpenDescriptor(fileDescriptor)
        reader = try BackgroundPCMReader(descriptor: fileDescriptor, ownsDescriptor: closeOnClose,
                                         capacity: bufferCapacity(milliseconds: bufferMilliseconds),
                                         overflow: overflow, name: "pcm-source-\(fileDescriptor)")
    }

    /// Reads from a path. A FIFO is opened read-write and non-blocking, so opening never waits
    /// for a writer and writers may come and go (the source never sees end of stream). Any other
    /// path is opened read-only; for a regular file consider `overflow: .block`.
    public convenience init(path: String, bufferMilliseconds: Int = 1_000, overflow: PCMOverflowPolicy = .dropOldest) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw AudioIOError.lastSystemError("stat \(path)") }
        let isFIFO = info.st_mode & S_IFMT == S_IFIFO
        let descriptor = open(path, (isFIFO ? O_RDWR | O_NONBLOCK : O_RDONLY) | O_CLOEXEC)
        guard descriptor >= 0 else { throw AudioIOError.lastSystemError("open \(path)") }
        try self.init(fileDescriptor: descriptor, closeOnClose: true, bufferMilliseconds: bufferMilliseconds, overflow: overflow)
    }

    /// Reads from standard input (left open on `close()`).
    public static func standardInput(bufferMilliseconds: Int = 1_000) throws -> RawPCMSource {
        try RawPCMSource(fileDescriptor: STDIN_FILENO, bufferMilliseconds: bufferMilliseconds)
    }

    deinit { close() }

    /// Reads that had to pad with silence before the end of the stream.
    public var underruns: Int { reader.underruns }
    /// Samples dropped because the buffer was full.
    public var droppedSamples: Int { reader.droppedSamples }
    /// True once the producer closed its end and all buffered audio has been read.
    public var isAtEnd: Bool { reader.isAtEnd }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int { reader.read(into: buffer) }

    public func close() {
        if closing.claim() { reader.stop() }
    }
}
