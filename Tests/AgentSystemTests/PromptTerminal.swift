import TestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program on a real pseudo-terminal (its own session, the pty as controlling terminal and
/// as stdin/stdout/stderr), like an ssh or tmux window. Reads what it draws, with ANSI escapes
/// stripped, and types keys into it. Killed with SIGKILL on deinit.
final class PromptTerminal: @unchecked Sendable {
    let pid: pid_t
    private let master: Int32
    private let lock = NSLock()
    private var raw: [UInt8] = []  // guarded by lock
    private var reaped: Int32?  // guarded by lock

    init(_ executable: String, _ arguments: [String], columns: UInt16 = 200) throws {
        // posix_openpt/ptsname are not imported into Swift: /dev/ptmx with the Linux ioctls instead
        // (TIOCSPTLCK 0x40045431 unlocks the slave, TIOCGPTN 0x80045430 gives its number).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
            throw HarnessError("cannot open a pseudo-terminal: errno \(errno)")
        }
        let slave = "/dev/pts/\(number)"
        var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid, opening the slave makes it the child's controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)  // test threads block signals; the mask survives exec
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGWINCH, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (a _GNU_SOURCE constant Swift does not import)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(master)
            throw HarnessError("posix_spawn \(executable): \(status)")
        }
        pid = child
    }

    deinit {
        kill()
        close(master)
    }

    /// Types `text` (keys are sent as they are: "a", "\r", "\u{1B}").
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(master, &bytes, bytes.count)
    }

    /// Everything drawn so far, without ANSI escape sequences.
    var screen: String { Self.stripANSI(String(decoding: lock.withLock { raw }, as: UTF8.self)) }

    /// How much has been read so far (to look only at what comes after an action).
    var mark: Int { lock.withLock { raw.count } }

    /// What was drawn after `mark`, without escapes.
    func screen(since mark: Int) -> String {
        Self.stripANSI(String(decoding: lock.withLock { Array(raw[min(mark, raw.count)...]) }, as: UTF8.self))
    }

    /// The raw output after `mark` (escape sequences and all), as text.
    func raw(since mark: Int) -> String {
        String(decoding: lock.withLock { Array(raw[min(mark, raw.count)...]) }, as: UTF8.self)
    }

    /// True if the raw output after `mark` holds `byte` (e.g. BEL, 0x07).
    func contains(byte: UInt8, since mark: Int = 0) -> Bool {
        lock.withLock { raw[min(mark, raw.count)...].contains(byte) }
    }

    /// Reads until `condition(screen since mark)` holds; throws with the screen on timeout.
    @discardableResult
    func waitFor(_ what: String, since mark: Int = 0, timeout: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = screen(since: mark)
            if condition(text) { return text }
            guard Date() < deadline else { throw HarnessError("timed out waiting for \(what); the prompt showed:\n\(screen.suffix(3000))") }
            pump(0.1)
        }
    }

    /// Waits for `needle` in the output after `mark`.
    @discardableResult
    func waitFor(text needle: String, since mark: Int = 0, timeout: Double = 20) throws -> String {
        try waitFor("\"\(needle)\"", since: mark, timeout: timeout) { $0.contains(needle) }
    }

    /// Waits for the program to exit (reading its last output); its exit code, or nil.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            pump(0.05)
            if let code = lock.withLock({ reaped }) { return code }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                pump(0.05)
                lock.withLock { reaped = code }
                return code
            }
        }
        return nil
    }

    /// The terminal's current local flags (shared by both sides of the pty): to check raw mode is undone.
    func localFlags() -> tcflag_t {
        var settings = termios()
        _ = tcgetattr(master, &settings)
        return settings.c_lflag
    }

    func kill() {
        lock.lock()
        defer { lock.unlock() }
        guard reaped == nil else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = 128 + SIGKILL
    }

    private func pump(_ seconds: Double) {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = read(master, &buffer, buffer.count)
        if count > 0 { lock.withLock { raw += buffer[..<count] } }
        if count <= 0 { usleep(UInt32(seconds * 1_000_000)) }  // EIO once the child closed the pty
    }

    /// Removes CSI (`ESC [ ... final`), OSC and two-byte escapes, BEL and carriage returns.
    static func stripANSI(_ text: String) -> String {
        text.replacingOccurrences(of: #"\x1B\[[0-?]*[ -/]*[@-~]|\x1B\][^\x07]*\x07|\x1B[@-Z\\-_]"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: "\u{07}", with: "")
            .replacingOccurrences(of: "\r", with: "")
    }
}
