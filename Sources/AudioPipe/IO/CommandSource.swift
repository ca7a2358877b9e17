import FoundationEssentials
import Glibc
import MainLoop

/// A live source reading raw s16le 48 kHz mono from the standard output of a shell command,
/// for example `arecord -q -f S16_LE -r 48000 -c 1 -t raw`.
///
/// The command runs under `/bin/sh -c` in its own process group with stdin from /dev/null and
/// stderr inherited. `read(into:)` never blocks; it pads with silence when starved (counted in
/// `underruns`) and after the command has exited (`exitStatus` says how; a warning is logged).
/// `close()` sends SIGTERM to the group, SIGKILL after one second, and reaps the child.
///
/// Runs on: any thread (the audio tick reads, the owner closes). Checked Sendable: it holds only
/// constants and thread-safe parts (`ChildProcess`, `BackgroundPCMReader`, `OnceFlag`).
public final class CommandSource: AudioSource, Sendable {
    /// The command line given to `/bin/sh -c`.
    public let command: String
    private let child: ChildProcess
    private let reader: BackgroundPCMReader
    private let closing = OnceFlag()

    /// Starts the command. Throws `AudioIOError.spawnFailed` if `/bin/sh` cannot be started; a
    /// command the shell cannot find shows up as `exitStatus == .exited(127)`.
    public init(command: String, bufferMilliseconds: Int = 1_000, overflow: PCMOverflowPolicy = .dropOldest) throws {
        self.command = command
        let capacity = try bufferCapacity(milliseconds: bufferMilliseconds)
        let pipe = try makePipe(nonBlocking: false)
        let closing = self.closing
        do {
            child = try ChildProcess(command: command, standardInput: .null, standardOutput: .descriptor(pipe.write)) { status in
                if !closing.isSet { Log.warning("audio", "audio source command \(status); sending silence") }
            }
        } catch {
            Glibc.close(pipe.read)
            Glibc.close(pipe.write)
            throw error
        }
        Glibc.close(pipe.write)
        reader = try BackgroundPCMReader(descriptor: pipe.read, ownsDescriptor: true, capacity: capacity,
                                         overflow: overflow, name: "command-source")
    }

    deinit { close() }

    /// How the command ended, once it has.
    public var exitStatus: ProcessExitStatus? { child.exitStatus }
    /// Reads that had to pad with silence before the command's output ended.
    public var underruns: Int { reader.underruns }
    /// Samples dropped because the buffer was full.
    public var droppedSamples: Int { reader.droppedSamples }
    /// True once the command closed its output and all buffered audio has been read.
    public var isAtEnd: Bool { reader.isAtEnd }

    /// Waits up to `timeout` seconds for the command to exit on its own.
    public func waitForExit(timeout: Double) -> ProcessExitStatus? { child.waitForExit(timeout: timeout) }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int { reader.read(into: buffer) }

    public func close() {
        guard closing.claim() else { return }
        child.terminate(grace: 1)
        reader.stop()
    }
}
