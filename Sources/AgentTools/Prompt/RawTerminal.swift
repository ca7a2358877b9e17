import AgentCore
import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Puts a terminal in raw mode (keys arrive one by one, no echo, Ctrl-C as a byte) and puts it
/// back: on `restore()`, on SIGINT, SIGTERM and SIGHUP (then the process exits), and on deinit.
/// Output post-processing stays on, so `\n` still moves to the next line's start.
///
/// Runs on: the prompt's thread, which owns it (not Sendable); the signal handlers run on their
/// own Dispatch queue and reach only the `SavedTerminalSettings`, which is checked Sendable.
final class RawTerminal {
    private let saved: SavedTerminalSettings
    private let sources: [any DispatchSourceSignal]
    private let queue = DispatchQueue(label: "wcs-agent.prompt.signals")

    /// Switches `fd` to raw mode. `onExitSignal` runs (terminal already restored) for SIGINT,
    /// SIGTERM or SIGHUP, just before the process exits with 128+signal; `onResize` on SIGWINCH.
    init(fd: Int32, onExitSignal: @escaping @Sendable (Int32) -> Void, onResize: @escaping @Sendable () -> Void) throws {
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw SystemCallError.current("read the terminal settings of", path: "stdin") }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) {
            $0[Int(VMIN)] = 1
            $0[Int(VTIME)] = 0
        }
        let saved = SavedTerminalSettings(fd: fd, original: original)
        self.saved = saved
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                saved.restore()
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
        self.sources = sources
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else {
            let error = SystemCallError.current("switch to raw mode", path: "stdin")
            saved.restore()
            throw error
        }
    }

    deinit { restore() }

    /// Puts the original settings back (once; later calls do nothing).
    func restore() {
        saved.restore()
    }

    /// The terminal's width in columns (80 when unknown).
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

/// A terminal's settings from before raw mode, put back once: by the owner or by a signal
/// handler, whichever comes first. Runs on: any thread; the settings are in a `Mutex` (nil once
/// restored), so it is checked Sendable.
final class SavedTerminalSettings: Sendable {
    private let fd: Int32
    private let original: Mutex<termios?>

    init(fd: Int32, original: termios) {
        self.fd = fd
        self.original = Mutex(original)
    }

    /// Puts the settings back (once; later calls do nothing).
    func restore() {
        original.withLock { saved in
            guard var settings = saved else { return }
            saved = nil
            _ = tcsetattr(fd, TCSAFLUSH, &settings)
        }
    }
}
