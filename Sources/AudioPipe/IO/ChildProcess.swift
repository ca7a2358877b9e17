import FoundationEssentials
import Glibc
import MainLoop

/// How an external command ended.
public enum ProcessExitStatus: Sendable, Equatable, CustomStringConvertible {
    /// The command exited with this status (127: not found, 126: not executable, by `/bin/sh`).
    case exited(Int32)
    /// The command was killed by this signal.
    case signaled(Int32)
    /// The status was lost (someone else reaped the child).
    case unknown

    /// Decodes a `waitpid` status word.
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7F
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xFF) : .signaled(signal)
    }

    public var description: String {
        switch self {
        case .exited(0): "exited normally (status 0)"
        case .exited(127): "exited with status 127 (command not found)"
        case .exited(126): "exited with status 126 (command not executable)"
        case let .exited(code): "exited with status \(code)"
        case let .signaled(signal): "killed by signal \(signal)"
        case .unknown: "exit status unknown"
        }
    }
}

/// A `/bin/sh -c` child in its own process group, with a reaper thread that records its exit.
///
/// The command string comes from configuration and is passed to the shell as one argument; none
/// of our data is ever spliced into it. The child starts with an empty signal mask and default
/// signal dispositions (threads of the parent, for instance test runners, may block SIGTERM), and
/// with `ShellCommand.cleanEnvironment()` only: nothing of systemd's (NOTIFY_SOCKET,
/// CREDENTIALS_DIRECTORY, ...) or of ours (WCS_*) reaches an audio command.
///
/// Runs on: its reaper thread for `waitpid`; `terminate`, `waitForExit` and `exitStatus` from
/// any thread. Checked Sendable: the exit status sits in a `ConditionLock`, which also orders
/// signalling against reaping.
final class ChildProcess: Sendable {
    typealias Redirect = ShellCommand.Redirect

    /// The shell's process id (also the process group id).
    let pid: pid_t
    /// The exit status, nil until the reaper has reaped the shell.
    private let status = ConditionLock<ProcessExitStatus?>(nil)

    /// Spawns `/bin/sh -c command`. `onExit` runs on the reaper thread when the shell exits.
    init(command: String, standardInput: Redirect, standardOutput: Redirect,
         onExit: (@Sendable (ProcessExitStatus) -> Void)? = nil) throws {
        pid = try Self.spawn(command, standardInput, standardOutput)
        NamedThread.start("audio-reaper") { [self] in reap(onExit) }
    }

    /// The exit status, once the shell has exited.
    var exitStatus: ProcessExitStatus? { status.withLock { $0 } }

    /// Waits up to `timeout` seconds for the shell to exit.
    @discardableResult
    func waitForExit(timeout: Double) -> ProcessExitStatus? {
        status.withLock(when: { $0 != nil }, timeout: timeout) { $0 }
    }

    /// SIGTERM to the whole process group, SIGKILL after `grace` seconds; waits for the reaper.
    @discardableResult
    func terminate(grace: Double = 1) -> ProcessExitStatus? {
        signalGroup(SIGTERM)
        if let status = waitForExit(timeout: grace) { return status }
        signalGroup(SIGKILL)
        return waitForExit(timeout: 5)
    }

    /// Signals the process group, but only while the shell has not been reaped (so the id cannot
    /// have been reused).
    private func signalGroup(_ signal: Int32) {
        status.withLock { current in
            if current == nil { kill(-pid, signal) }
        }
    }

    private func reap(_ onExit: (@Sendable (ProcessExitStatus) -> Void)?) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let result: ProcessExitStatus = status.withLock { current in   // reap under the lock that guards kill()
            var raw: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &raw, 0) } while reaped < 0 && errno == EINTR
            let result = reaped == pid ? ProcessExitStatus(waitStatus: raw) : .unknown
            current = result
            return result
        }
        status.broadcast()
        onExit?(result)
    }

    private static func spawn(_ command: String, _ input: Redirect, _ output: Redirect) throws -> pid_t {
        let pid: pid_t
        do {
            pid = try ShellCommand.spawn(command, stdin: input, stdout: output, environment: ShellCommand.cleanEnvironment())
        } catch {
            throw AudioIOError.spawnFailed(command: command, message: error.description)
        }
        Log.debug("audio", "started audio command (pid \(pid)): \(command)")
        return pid
    }
}

extension ShellCommand {
    /// The environment of a child that must not inherit ours (audio commands, hooks): PATH (ours, or
    /// a standard one), and HOME, LANG, LC_ALL and TZ when we have them; nothing else, so no systemd
    /// handle (NOTIFY_SOCKET, CREDENTIALS_DIRECTORY, WATCHDOG_*, LISTEN_FDS) and no WCS_* value leaks.
    public static func cleanEnvironment(from inherited: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var env: [String: String] = ["PATH": inherited["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"]
        for key in ["HOME", "LANG", "LC_ALL", "TZ"] { env[key] = inherited[key] }
        return env
    }
}
