import FoundationEssentials
import Glibc

/// Starts `/bin/sh -c COMMAND` children the same way everywhere (audio commands, hooks): in their
/// own process group, with an empty signal mask and default dispositions (threads of the parent,
/// test runners for instance, may block SIGTERM), stdin/stdout redirected as asked.
///
/// The command string comes from configuration and is passed to the shell as one argument; none
/// of our data is ever spliced into it.
public enum ShellCommand {
    /// Where a child's standard stream goes.
    public enum Redirect: Sendable {
        /// This descriptor (dup'ed onto the stream).
        case descriptor(Int32)
        /// `/dev/null`.
        case null
        /// The parent's standard error (keeps a child's chatter off our stdout).
        case standardError
    }

    /// Spawns the shell; returns its pid (also its process group id). `environment` nil inherits
    /// ours; otherwise it is the child's whole environment. Throws the `strerror` text on failure.
    public static func spawn(_ command: String, stdin input: Redirect, stdout output: Redirect,
                             environment: [String: String]? = nil) throws(SpawnError) -> pid_t
    {
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

        let arguments: [UnsafeMutablePointer<CChar>?] = [String](["/bin/sh", "-c", command]).map { strdup($0) }
        let variables: [UnsafeMutablePointer<CChar>?]? = environment.map { pairs in
            pairs.sorted { $0.key < $1.key }.map { (pair: (key: String, value: String)) in strdup("\(pair.key)=\(pair.value)") }
        }
        defer { (arguments + (variables ?? [])).forEach { free($0) } }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments + [nil]
        var envp: [UnsafeMutablePointer<CChar>?]? = variables.map { $0 + [nil] }
        var pid: pid_t = 0
        let result = descriptorCreationLock.withLock { _ in
            if envp != nil {
                return posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp!)
            }
            return posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        }
        guard result == 0 else { throw SpawnError(description: String(cString: strerror(result))) }
        return pid
    }

    /// Why a command could not be started.
    public struct SpawnError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }
}
