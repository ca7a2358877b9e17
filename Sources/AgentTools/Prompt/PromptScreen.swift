import AgentCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where the prompt draws. On a terminal: a live block of status lines redrawn in place (plain
/// ANSI: cursor up, erase below; works in ssh and tmux), with notes scrolling above it. Without a
/// terminal: plain lines, a block line printed only when it changes (timers aside), no escapes.
/// Every line it is given is escaped here (`UntrustedText`), the one way out to the terminal: a
/// caller's name, number or call id, or server text in a note, can neither drive the terminal nor
/// break the block; the screen's own cursor codes are added after.
/// Not thread-safe: the session calls it under its lock.
final class PromptScreen {
    private let fd: Int32
    /// True on a terminal (live block), false for plain lines.
    let live: Bool
    private var drawn: [String] = []
    private var printedSignature: [String] = []
    private var width: Int

    /// Draws on `fd` (stdout).
    init(fd: Int32, live: Bool) {
        self.fd = fd
        self.live = live
        width = live ? RawTerminal.columns(fd) : 0
    }

    /// Shows `lines` as the live block (no-op when unchanged); `signature` is the block without
    /// timers (line mode prints only changed lines); `bell` rings first.
    func show(_ lines: [String], signature: [String], bell: Bool) {
        let lines = lines.map { UntrustedText.escaped($0) }
        if live {
            guard lines != drawn || bell else { return }
            write((bell ? "\u{07}" : "") + erase() + draw(lines))
            drawn = lines
        } else {
            let fresh = zip(lines, signature).filter { !printedSignature.contains($0.1) }.map(\.0)
            printedSignature = signature
            if !fresh.isEmpty { write(fresh.joined(separator: "\n") + "\n") }
        }
    }

    /// Prints `text` above the live block (or as a plain line).
    func note(_ text: String) {
        let text = UntrustedText.escaped(text)
        if live {
            write(erase() + clip(text) + "\r\n" + draw(drawn))
        } else {
            write(text + "\n")
        }
    }

    /// Re-reads the width and draws the block again (SIGWINCH, Ctrl-L).
    func redraw(clearScreen: Bool) {
        guard live else { return }
        width = RawTerminal.columns(fd)
        write((clearScreen ? "\u{1B}[H\u{1B}[2J" : erase()) + draw(drawn))
    }

    /// Leaves the block on screen and moves below it, printing `text` last.
    func finish(_ text: String) {
        let text = UntrustedText.escaped(text)
        if live {
            write("\r\n" + text + "\r\n")
        } else {
            write(text + "\n")
        }
        drawn = []
    }

    private func erase() -> String {
        guard !drawn.isEmpty else { return "\r" }
        return "\r" + (drawn.count > 1 ? "\u{1B}[\(drawn.count - 1)A" : "") + "\u{1B}[J"
    }

    private func draw(_ lines: [String]) -> String {
        lines.map(clip).joined(separator: "\r\n")
    }

    /// Keeps a line within the width so it never wraps (a wrapped line would break the redraw).
    private func clip(_ line: String) -> String {
        guard width > 1, line.count >= width else { return line }
        return String(line.prefix(width - 1))
    }

    private func write(_ text: String) {
        _ = FileDescriptorIO.writeAll(fd, text)
    }
}
