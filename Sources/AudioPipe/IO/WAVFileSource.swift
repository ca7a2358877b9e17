import FoundationEssentials
import Glibc
import Synchronization

/// Plays a WAV file (any rate and channel count of 16-bit PCM, see `WAVReader`) as 48 kHz mono.
///
/// The whole file is decoded and converted in `init` (96 KB per second of audio), so `read`
/// only copies memory. Without looping, the last frame may be short and later reads return 0.
///
/// Runs on: any thread (the audio tick reads, the owner closes); the play position is in a
/// `Mutex`, so it is checked Sendable.
public final class WAVFileSource: AudioSource, Sendable {
    /// Whether playback restarts at the beginning after the end.
    public let loops: Bool
    /// The converted samples.
    public let samples: [Int16]
    private let playback = Mutex<(position: Int, closed: Bool)>((0, false))

    /// Loads `path`; throws `WAVError` for a file it cannot play.
    public convenience init(path: String, loop: Bool = false) throws {
        try self.init(samples: WAVReader.read48kMono(path: path), loop: loop)
    }

    /// Plays samples already at 48 kHz mono.
    public init(samples: [Int16], loop: Bool = false) {
        self.samples = samples
        loops = loop
    }

    /// The playback position in samples.
    public var playedSamples: Int { playback.withLock { $0.position } }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        playback.withLock { state in
            guard !state.closed, !samples.isEmpty else { return 0 }
            var position = state.position
            defer { state.position = position }
            var written = 0
            samples.withUnsafeBufferPointer { all in
                while written < buffer.count {
                    if position == all.count {
                        guard loops else { break }
                        position = 0
                    }
                    let run = min(buffer.count - written, all.count - position)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[written..<(written + run)])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: all[position..<(position + run)]))
                    written += run
                    position += run
                }
            }
            return written
        }
    }

    public func close() { playback.withLock { $0.closed = true } }
}
