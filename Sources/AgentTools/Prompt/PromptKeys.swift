import AgentCore
/// What the operator asked for, from a key (terminal) or a line (no terminal).
enum PromptAction: Sendable, Equatable {
    case answer, decline, hangup, holdToggle, muteToggle, detach, redraw
    /// Send these DTMF digits now.
    case dtmf(String)
    /// Start typing a transfer target (terminal).
    case startTransfer
    /// Transfer the active call to this target.
    case transfer(String)
    /// While typing a target: add text, delete one character, send, or give up.
    case type(String), backspace, submit, cancel
}

/// One key read from the terminal: a byte, or a lone Esc (escape sequences such as arrows or
/// function keys are skipped).
enum PromptKey: Sendable, Equatable {
    case byte(UInt8)
    case escape
}

/// Splits raw terminal bytes into keys (an escape sequence split across reads is completed by
/// the next read), and maps a key to an action; `typing` is true while a transfer target is typed.
struct PromptKeyDecoder: Sendable {
    private var pendingEscape: [UInt8] = []

    /// The keys in `bytes`.
    mutating func feed(_ bytes: [UInt8]) -> [PromptKey] {
        var keys: [PromptKey] = []
        let all = pendingEscape + bytes
        pendingEscape = []
        var index = 0
        while index < all.count {
            let byte = all[index]
            guard byte == 0x1B else {
                keys.append(.byte(byte))
                index += 1
                continue
            }
            // ESC [ params final, or ESC O x: a key sequence to skip. ESC alone: the Esc key.
            guard index + 1 < all.count, all[index + 1] == UInt8(ascii: "[") || all[index + 1] == UInt8(ascii: "O") else {
                keys.append(.escape)
                index += 1
                continue
            }
            var end = index + 2
            if all[index + 1] == UInt8(ascii: "[") {
                while end < all.count, !(0x40...0x7E).contains(all[end]) { end += 1 }
            }
            if end >= all.count {
                pendingEscape = Array(all[index...])  // the rest arrives with the next read
                break
            }
            index = end + 1
        }
        return keys
    }

    /// What `key` means now.
    static func action(_ key: PromptKey, typing: Bool) -> PromptAction? {
        guard case .byte(let byte) = key else { return typing ? .cancel : nil }
        switch byte {
        case 0x03, 0x04: return typing ? .cancel : .detach  // Ctrl-C, Ctrl-D
        case 0x0C: return .redraw  // Ctrl-L
        default: break
        }
        if typing {
            switch byte {
            case 0x0D, 0x0A: return .submit
            case 0x7F, 0x08: return .backspace
            case 0x20...0x7E: return .type(String(UnicodeScalar(byte)))
            default: return nil
            }
        }
        switch Character(UnicodeScalar(byte)) {
        case "a", "A": return .answer
        case "d", "D": return .decline
        case "h", "H": return .hangup
        case "p", "P": return .holdToggle
        case "m", "M": return .muteToggle
        case "t", "T": return .startTransfer
        case "q", "Q": return .detach
        case let c where c.isASCII && (c.isNumber || c == "*" || c == "#"): return .dtmf(String(c))
        default: return nil
        }
    }
}

/// Reads one command line (no terminal): `a`, `d`, `h`, `p`, `m`, `q`, digits for DTMF
/// (`dtmf 12#` or just `12#`), `t TARGET` to transfer. Long names work too (`answer`, `hangup`...).
enum PromptLineCommand {
    /// The actions of `line`, or nil when it is not a command.
    static func parse(_ line: String) -> [PromptAction]? {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first?.lowercased() else { return [] }
        let rest = words.dropFirst().joined(separator: " ")
        switch first {
        case "a", "answer": return [.answer]
        case "d", "decline": return [.decline]
        case "h", "hangup": return [.hangup]
        case "p", "hold", "resume": return [.holdToggle]
        case "m", "mute", "unmute": return [.muteToggle]
        case "q", "quit", "detach": return [.detach]
        case "t", "transfer": return rest.isEmpty ? nil : [.transfer(rest)]
        case "dtmf": return isDTMF(rest) ? [.dtmf(rest)] : nil
        default: return isDTMF(first) && words.count == 1 ? [.dtmf(first)] : nil
        }
    }

    static func isDTMF(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "*" || $0 == "#") }
    }
}
