import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests: spawned with `posix_spawn`, an empty signal mask and default signal
/// dispositions (test threads block signals and the mask survives exec), stdin from /dev/null, stdout
/// on a pipe this object reads, stderr to a file (or inherited). ``kill()`` sends SIGKILL and reaps it;
/// deinit does the same.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t

    private let lock = NSLock()
    private var stdoutFD: Int32  // guarded by lock; -1 once closed
    private var buffered: [UInt8] = []  // guarded by lock
    private var reaped = false  // guarded by lock
    private var exitCode: Int32?  // guarded by lock; set when reaped by waitForExit

    /// Starts `executable` with `arguments` (argv[0] is the executable path).
    /// - Parameter stderrPath: file that receives the child's stderr (created or truncated);
    ///   nil means the child inherits this process's stderr.
    /// - Parameter environment: the child's whole environment; nil inherits this process's.
    public init(executable: String, arguments: [String], stderrPath: String? = nil,
                environment: [String: String]? = nil) throws {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw TestSupportError.system("pipe", errno) }
        for fd in pipeFDs {  // keep both ends out of other children; dup2 clears the flag on the child's 1
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT] {
            sigaddset(&defaultSignals, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var childPID: pid_t = 0
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        let status = envp.map { posix_spawn(&childPID, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&childPID, executable, &actions, &attributes, argv, environ)
        close(pipeFDs[1])
        guard status == 0 else {
            close(pipeFDs[0])
            throw TestSupportError.system("posix_spawn \(executable)", status)
        }
        pid = childPID
        stdoutFD = pipeFDs[0]
    }

    /// Reads the child's next stdout line (without the newline), waiting at most `timeout` seconds.
    /// Throws ``TestSupportError/timeout(_:)`` or, if stdout closes first,
    /// ``TestSupportError/exited(_:)`` with what was read.
    public func readLine(timeout: Double) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, stdoutFD >= 0 else {
                throw TestSupportError.timeout("no stdout line from pid \(pid) within \(timeout) s")
            }
            var poller = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { throw TestSupportError.system("poll", errno) }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(stdoutFD, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw TestSupportError.system("read", errno)
            }
            if count == 0 {
                throw TestSupportError.exited(String(decoding: buffered, as: UTF8.self))
            }
            buffered += chunk[..<count]
        }
    }

    /// True while the child has not exited (and has not been reaped by ``kill()``).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if reaped { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            reaped = true
            return false
        }
        return result == 0
    }

    /// Sends `signal` to the child (no-op once reaped).
    public func signal(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if !reaped { _ = Glibc.kill(pid, signal) }
    }

    /// Waits up to `timeout` seconds for the child to exit; returns its exit code (128+N for a
    /// signal N), or nil if it is still running or was already reaped by `kill()`.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            if reaped { lock.unlock(); return exitCode }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                reaped = true
                let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                exitCode = code
                lock.unlock()
                return code
            }
            lock.unlock()
            usleep(10_000)
        }
        return nil
    }

    /// Everything the child wrote on stdout until it closed it (waits at most `timeout` seconds).
    public func readToEnd(timeout: Double) -> String {
        var lines: [String] = []
        while let line = try? readLine(timeout: timeout) { lines.append(line) }
        lock.lock()
        let rest = String(decoding: buffered, as: UTF8.self)
        buffered.removeAll()
        lock.unlock()
        if !rest.isEmpty { lines.append(rest) }
        return lines.joined(separator: "\n")
    }

    /// Sends SIGKILL, waits for the child to exit and closes the pipe. Safe to call more than once.
    public func kill() {
        lock.lock()
        defer { lock.unlock() }
        if !reaped {
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
        if stdoutFD >= 0 {
            close(stdoutFD)
            stdoutFD = -1
        }
    }

    deinit {
        kill()
    }
}
