import FoundationEssentials

/// What an answer rule (or the `on_incoming` hook) decides for a ringing call.
public enum AnswerAction: Sendable, Equatable, CustomStringConvertible {
    /// Answer as `AnswerMode` says: `auto`, `after:N` or `manual`.
    case answer(AnswerMode)
    /// Decline at once as busy; recorded with end result `busy`.
    case reject

    /// Parses `auto`, `after:N`, `manual` or `reject`. Throws `ConfigError`.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingSpaces().lowercased()
        if trimmed == "reject" {
            self = .reject
            return
        }
        do {
            self = .answer(try AnswerMode(parsing: trimmed))
        } catch {
            throw ConfigError("invalid answer action \"\(text)\": expected auto, after:SECONDS, manual or reject")
        }
    }

    public var description: String {
        switch self {
        case .answer(let mode): mode.description
        case .reject: "reject"
        }
    }
}

/// One `[answer.NAME]` section: conditions on the caller, the display name and the local time;
/// every condition given must hold (within one condition, any listed value may match).
public struct AnswerRule: Sendable, Equatable {
    /// The section's NAME (logged and shown with the decision).
    public var name: String
    /// Caller number patterns (`*` any run, `?` one character); empty = any caller.
    public var callers: [String] = []
    /// Display-name patterns, case-insensitive; empty = any name.
    public var names: [String] = []
    /// Local time windows; empty = any time.
    public var times: [TimeOfDayWindow] = []
    /// Weekdays (1 = Sunday ... 7 = Saturday, as `WallClockTime`); empty = every day.
    public var weekdays: Set<Int> = []
    public var action: AnswerAction

    /// Whether the rule matches a call from `caller` named `displayName` ringing at `time`.
    func matches(caller: String?, displayName: String?, at time: WallClockTime) -> Bool {
        if !callers.isEmpty {
            let candidates = [caller, caller.map(Self.userPart)].compactMap { $0 }
            guard callers.contains(where: { pattern in candidates.contains { Glob.matches(pattern, $0) } }) else { return false }
        }
        if !names.isEmpty {
            guard let displayName, names.contains(where: { Glob.matches($0.lowercased(), displayName.lowercased()) }) else { return false }
        }
        if !weekdays.isEmpty, !weekdays.contains(time.weekday) { return false }
        if !times.isEmpty {
            guard times.contains(where: { $0.contains(time.minuteOfDay) }) else { return false }
        }
        return true
    }

    /// `1001` of `sip:1001@pbx.example` (the caller as SIP servers sometimes send it).
    static func userPart(_ caller: String) -> String {
        var user = Substring(caller)
        for prefix in ["sip:", "sips:", "tel:"] where user.lowercased().hasPrefix(prefix) { user = user.dropFirst(prefix.count) }
        return String(user.prefix { $0 != "@" && $0 != ";" })
    }
}

/// A local time-of-day window `HH:MM-HH:MM`, start inclusive, end exclusive; it wraps midnight
/// when the end is not after the start (`22:00-07:00`). `00:00-24:00` is the whole day.
public struct TimeOfDayWindow: Sendable, Equatable {
    /// Minutes after midnight.
    public var start: Int
    public var end: Int

    func contains(_ minute: Int) -> Bool {
        start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
    }
}

/// Glob matching of caller numbers and names: `*` any run (also empty), `?` exactly one character.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
