import Foundation
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
/// signal dispositions (threads of the parent, for instance test runners, may block SIGTERM).
final class ChildProcess: @unchecked Sendable {
    /// Where a child's standard stream goes.
    enum Redirect {
        /// This descriptor (dup'ed onto the stream).
        case descriptor(Int32)
        /// `/dev/null`.
        case null
        /// The parent's standard error (keeps a child's chatter off our stdout).
        case standardError
    }

    /// The shell's process id (also the process group id).
    let pid: pid_t
    private let condition = NSCondition()
    private var status: ProcessExitStatus?

    /// Spawns `/bin/sh -c command`. `onExit` runs on the reaper thread when the shell exits.
    init(command: String, standardInput: Redirect, standardOutput: Redirect,
         onExit: (@Sendable (ProcessExitStatus) -> Void)? = nil) throws {
        pid = try Self.spawn(command, standardInput, standardOutput)
        let thread = Thread { [self] in reap(onExit) }
        thread.name = "audio-command-reaper"
        thread.start()
    }

    /// The exit status, once the shell has exited.
    var exitStatus: ProcessExitStatus? { condition.withLock { status } }

    /// Waits up to `timeout` seconds for the shell to exit.
    @discardableResult
    func waitForExit(timeout: Double) -> ProcessExitStatus? {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while status == nil && condition.wait(until: deadline) {}
            return status
        }
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
        condition.withLock {
            if status == nil { kill(-pid, signal) }
        }
    }

    private func reap(_ onExit: (@Sendable (ProcessExitStatus) -> Void)?) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let result: ProcessExitStatus = condition.withLock {   // reap under the lock that guards kill()
            var raw: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &raw, 0) } while reaped < 0 && errno == EINTR
            let result = reaped == pid ? ProcessExitStatus(waitStatus: raw) : .unknown
            status = result
            condition.broadcast()
            return result
        }
        onExit?(result)
    }

    private static func spawn(_ command: String, _ input: Redirect, _ output: Redirect) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (redirect, target) in [(input, STDIN_FILENO), (output, STDOUT_FILENO)] {
            switch redirect {
            case let .descriptor(fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            case .standardError: posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, target)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let arguments = [String]([ "/bin/sh", "-c", command ]).map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments + [nil]
        var pid: pid_t = 0
        let result = descriptorCreationLock.withLock {
            posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        }
        guard result == 0 else {
            throw AudioIOError.spawnFailed(command: command, message: String(cString: strerror(result)))
        }
        Log.debug("audio", "started audio command (pid \(pid)): \(command)")
        return pid
    }
}
