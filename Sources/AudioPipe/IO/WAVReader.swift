import AudioCodec
import Glibc

/// Reads a RIFF/WAVE file of 16-bit integer PCM (plain or `WAVE_FORMAT_EXTENSIBLE`), any rate and
/// channel count, and converts it to 48 kHz mono (channels averaged, libsoxr `.high` quality).
///
/// Rejected with a `WAVError` that says why: non-PCM encodings (float, ADPCM, G.711, …),
/// 8/24/32-bit PCM, RF64, missing chunks and truncated files. A data chunk whose declared size
/// is 0, 0x7FFFFFFF or 0xFFFFFFFF (a streamed recording) is read to the end of the file.
public final class WAVReader: Sendable {
    /// The file's format.
    public let format: WAVFormat
    /// Sample frames (per channel) in the file.
    public let frameCount: Int
    private let bytes: [UInt8]
    private let data: Range<Int>

    /// Reads and validates the file at `path`.
    /// A failed open or read throws `WAVError.unreadable` with the system's reason.
    public convenience init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WAVError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw WAVError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            contents.append(contentsOf: chunk[0..<count])
        }
        try self.init(bytes: contents)
    }

    /// Validates a WAV image held in memory.
    public init(bytes: [UInt8]) throws {
        (format, data) = try WAVParser.parse(bytes)
        self.bytes = bytes
        frameCount = data.count / format.blockAlign
    }

    /// The length in seconds.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// The file's samples as 48 kHz mono.
    public func samples48kMono() throws -> [Int16] {
        let resampler = try Resampler(inputRate: format.sampleRate, inputChannels: format.channels)
        var output: [Int16] = []
        output.reserveCapacity(Int(Double(frameCount) * Double(AudioPipe.sampleRate) / Double(format.sampleRate)) + 64)
        let chunkFrames = 4_096
        var chunk = [Int16](repeating: 0, count: chunkFrames * format.channels)
        var frame = 0
        while frame < frameCount {
            let frames = min(chunkFrames, frameCount - frame)
            let start = data.lowerBound + frame * format.blockAlign
            for index in 0..<(frames * format.channels) {
                let at = start + index * 2
                chunk[index] = Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
            }
            try chunk.withUnsafeBufferPointer {
                try resampler.process(UnsafeBufferPointer(rebasing: $0[0..<(frames * format.channels)]), appendingTo: &output)
            }
            frame += frames
        }
        try resampler.flush(appendingTo: &output)
        return output
    }

    /// Reads a file straight to 48 kHz mono samples.
    public static func read48kMono(path: String) throws -> [Int16] {
        try WAVReader(path: path).samples48kMono()
    }
}
