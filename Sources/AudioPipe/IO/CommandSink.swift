import FoundationEssentials
import Glibc

/// A sink writing raw s16le 48 kHz mono to the standard input of a shell command, for example
/// `aplay -q -f S16_LE -r 48000 -c 1 -t raw`.
///
/// The command runs under `/bin/sh -c` in its own process group; its stdout goes to our stderr
/// (never to our stdout). `write(_:)` queues without blocking. If the command exits, `write`
/// throws `AudioIOError.sinkFailed` naming the exit status. `close()` drains the queue (up to
/// one second), closes the command's stdin, gives it one second to exit, then sends SIGTERM to
/// the group, SIGKILL one second later, and reaps it.
///
/// Runs on: any thread (the audio tick writes, the owner closes). Checked Sendable: it holds only
/// constants and thread-safe parts (`ChildProcess`, `BackgroundPCMWriter`, `OnceFlag`).
public final class CommandSink: AudioSink, Sendable {
    /// The command line given to `/bin/sh -c`.
    public let command: String
    private let child: ChildProcess
    private let writer: BackgroundPCMWriter
    private let stdinDescriptor: Int32
    private let closing = OnceFlag()

    /// Starts the command. Throws `AudioIOError.spawnFailed` if `/bin/sh` cannot be started.
    public init(command: String, bufferMilliseconds: Int = 1_000) throws {
        self.command = command
        let capacity = try bufferCapacity(milliseconds: bufferMilliseconds)
        let pipe = try makePipe(nonBlocking: false)
        do {
            child = try ChildProcess(command: command, standardInput: .descriptor(pipe.read), standardOutput: .standardError)
        } catch {
            Glibc.close(pipe.read)
            Glibc.close(pipe.write)
            throw error
        }
        Glibc.close(pipe.read)
        stdinDescriptor = pipe.write
        writer = try BackgroundPCMWriter(target: .descriptor(pipe.write), capacity: capacity, name: "command-sink")
    }

    deinit { try? close() }

    /// How the command ended, once it has.
    public var exitStatus: ProcessExitStatus? { child.exitStatus }
    /// Samples dropped because the buffer was full.
    public var droppedSamples: Int { writer.droppedSamples }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        do {
            try writer.write(samples)
        } catch AudioIOError.sinkFailed(let reason) {
            let status = child.waitForExit(timeout: 0.05).map { "; the command \($0)" } ?? ""
            throw AudioIOError.sinkFailed(reason + status)
        }
    }

    public func close() throws {
        guard closing.claim() else { return }
        writer.finish(drainTimeout: 1)
        Glibc.close(stdinDescriptor)
        if child.waitForExit(timeout: 1) == nil { child.terminate(grace: 1) }
    }
}
