import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Puts a terminal in raw mode (keys arrive one by one, no echo, Ctrl-C as a byte) and puts it
/// back: on `restore()`, on SIGINT, SIGTERM and SIGHUP (then the process exits), and on deinit.
/// Output post-processing stays on, so `\n` still moves to the next line's start.
final class RawTerminal: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var saved: termios?  // guarded by lock; nil once restored
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "wcs-agent.prompt.signals")

    /// Switches `fd` to raw mode. `onExitSignal` runs (terminal already restored) for SIGINT,
    /// SIGTERM or SIGHUP, just before the process exits with 128+signal; `onResize` on SIGWINCH.
    init(fd: Int32, onExitSignal: @escaping @Sendable (Int32) -> Void, onResize: @escaping @Sendable () -> Void) throws {
        self.fd = fd
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw SystemCallError.current("read the terminal settings of", path: "stdin") }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) {
            $0[Int(VMIN)] = 1
            $0[Int(VTIME)] = 0
        }
        saved = original
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                self?.restore()
                onExitSignal(number)
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
        resize.setEventHandler { onResize() }
        resize.resume()
        sources.append(resize)
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else {
            let error = SystemCallError.current("switch to raw mode", path: "stdin")
            restore()
            throw error
        }
    }

    deinit { restore() }

    /// Puts the original settings back (once; later calls do nothing).
    func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard var original = saved else { return }
        saved = nil
        _ = tcsetattr(fd, TCSAFLUSH, &original)
    }

    /// The terminal's width in columns (80 when unknown).
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
