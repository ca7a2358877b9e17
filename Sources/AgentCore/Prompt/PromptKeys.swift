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

/// Decodes raw terminal bytes into actions. Escape sequences (arrows, function keys) are skipped;
/// a lone Esc cancels typing.
struct PromptKeyDecoder: Sendable {
    private var pendingEscape: [UInt8] = []

    /// The actions in `bytes`; `typing` is true while a transfer target is being typed.
    mutating func feed(_ bytes: [UInt8], typing: Bool) -> [PromptAction] {
        var actions: [PromptAction] = []
        var index = 0
        let all = pendingEscape + bytes
        pendingEscape = []
        while index < all.count {
            let byte = all[index]
            if byte == 0x1B {
                // ESC [ ... final, or ESC O x: a key sequence to skip. A lone ESC: cancel.
                guard index + 1 < all.count else {
                    if typing { actions.append(.cancel) }
                    index += 1
                    continue
                }
                let next = all[index + 1]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    var end = index + 2
                    while end < all.count, next == UInt8(ascii: "["), !(0x40...0x7E).contains(all[end]) { end += 1 }
                    if end >= all.count {
                        pendingEscape = Array(all[index...])  // the rest arrives with the next read
                        break
                    }
                    index = end + 1
                    continue
                }
                if typing { actions.append(.cancel) }
                index += 1
                continue
            }
            index += 1
            actions += decode(byte, typing: typing)
        }
        return actions
    }

    private func decode(_ byte: UInt8, typing: Bool) -> [PromptAction] {
        switch byte {
        case 0x03, 0x04: return typing ? [.cancel] : [.detach]  // Ctrl-C, Ctrl-D
        case 0x0C: return [.redraw]  // Ctrl-L
        default: break
        }
        if typing {
            switch byte {
            case 0x0D, 0x0A: return [.submit]
            case 0x7F, 0x08: return [.backspace]
            case 0x20...0x7E: return [.type(String(UnicodeScalar(byte)))]
            default: return []
            }
        }
        switch Character(UnicodeScalar(byte)) {
        case "a", "A": return [.answer]
        case "d", "D": return [.decline]
        case "h", "H": return [.hangup]
        case "p", "P": return [.holdToggle]
        case "m", "M": return [.muteToggle]
        case "t", "T": return [.startTransfer]
        case "q", "Q": return [.detach]
        case let c where c.isASCII && (c.isNumber || c == "*" || c == "#"): return [.dtmf(String(c))]
        default: return []
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
