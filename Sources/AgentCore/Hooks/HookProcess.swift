import AudioPipe
import FoundationEssentials
import Dispatch
import MainLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How one hook run ended.
public struct HookOutcome: Sendable, Equatable {
    /// The exit status (`nil` when it was killed or could not start).
    public var exitStatus: Int32?
    /// The signal that ended it, if any.
    public var signal: Int32?
    /// Whether it was killed because it outlived its timeout.
    public var timedOut: Bool
    /// Its standard output (at most 64 KiB).
    public var output: String
    /// Why it could not be started, if it was not.
    public var spawnError: String?

    /// Exited with status 0 within its timeout.
    public var succeeded: Bool { exitStatus == 0 && !timedOut }

    /// "exit status 1", "killed after the 5 s timeout", "killed by signal 9", "cannot start: ...".
    public var summary: String {
        if let spawnError { return "cannot start: \(spawnError)" }
        if timedOut { return "killed at its timeout" }
        if let signal { return "killed by signal \(signal)" }
        return "exit status \(exitStatus ?? -1)"
    }
}

/// Runs one hook: `/bin/sh -c COMMAND` in its own process group with exactly the given
/// environment (nothing inherited), stdin from /dev/null, stdout captured, stderr to ours.
/// The whole group is killed with SIGKILL at the timeout. Never throws; never blocks the caller's
/// executor (the waiting happens on a dedicated thread).
public enum HookProcess {
    static let outputLimit = 64 * 1024

    /// Runs `command` and returns how it ended, at the latest shortly after `timeout` seconds.
    public static func run(_ command: String, environment: [String: String], timeout: Double) async -> HookOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<HookOutcome, Never>) in
            NamedThread.start("wcs-hook") { continuation.resume(returning: runBlocking(command, environment: environment, timeout: timeout)) }
        }
    }

    /// The blocking body of `run`.
    static func runBlocking(_ command: String, environment: [String: String], timeout: Double) -> HookOutcome {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            return HookOutcome(exitStatus: nil, signal: nil, timedOut: false, output: "", spawnError: String(cString: strerror(errno)))
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            pid = try spawn(command, environment: environment, stdout: fds[1])
        } catch {
            FileDescriptorIO.close(fds[0])
            FileDescriptorIO.close(fds[1])
            return HookOutcome(exitStatus: nil, signal: nil, timedOut: false, output: "", spawnError: "\(error)")
        }
        FileDescriptorIO.close(fds[1])
        let guardState = KillGuard(pid: pid)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0.05, timeout)) { guardState.killIfRunning() }

        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Poll with a deadline: a descriptor leaked into another child must not keep us reading.
        let deadline = MonotonicTime.now() + max(0.05, timeout) + 1
        while true {
            var poller = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, FileDescriptorIO.pollTimeout(until: deadline))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            let n = read(fds[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if output.count < outputLimit { output.append(contentsOf: buffer[0..<min(n, outputLimit - output.count)]) }
        }
        FileDescriptorIO.close(fds[0])
        var raw: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &raw, 0) } while reaped < 0 && errno == EINTR
        let timedOut = guardState.markReaped()
        let text = String(decoding: output, as: UTF8.self)
        guard reaped == pid else { return HookOutcome(exitStatus: nil, signal: nil, timedOut: timedOut, output: text, spawnError: nil) }
        let signal = raw & 0x7f
        if signal != 0 { return HookOutcome(exitStatus: nil, signal: signal, timedOut: timedOut, output: text, spawnError: nil) }
        return HookOutcome(exitStatus: (raw >> 8) & 0xff, signal: nil, timedOut: timedOut, output: text, spawnError: nil)
    }

    private static func spawn(_ command: String, environment: [String: String], stdout: Int32) throws -> pid_t {
        do {
            return try ShellCommand.spawn(command, stdin: .null, stdout: .descriptor(stdout), environment: environment)
        } catch {
            throw AgentError(error.description)
        }
    }
}

/// Kills a hook's process group at its timeout, but only while the shell is not yet reaped (so a
/// reused process id is never signalled).
///
/// Runs on: a Dispatch timer (`killIfRunning`) and the hook's thread (`markReaped`); the two
/// flags are in a `Mutex`, held while signalling, so it is checked Sendable.
private final class KillGuard: Sendable {
    private let pid: pid_t
    private let state = Mutex<(reaped: Bool, killed: Bool)>((false, false))

    init(pid: pid_t) { self.pid = pid }

    func killIfRunning() {
        state.withLock { state in
            guard !state.reaped else { return }
            state.killed = true
            kill(-pid, SIGKILL)
        }
    }

    /// Records the reap; returns whether the timeout killed it.
    func markReaped() -> Bool {
        state.withLock { state in
            state.reaped = true
            return state.killed
        }
    }
}
