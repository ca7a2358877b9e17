import AudioPipe
import FoundationEssentials
import WCSSession

/// What a matched DTMF code does.
public enum DoorActionRun: Sendable, Equatable, CustomStringConvertible {
    /// A command run through /bin/sh with a clean environment (as the hooks), never the code.
    case command(String)
    /// Built-ins.
    case hangup, hold, extend

    /// Parses `hangup`, `hold`, `extend`, else a command.
    init(parsing text: String) {
        switch text.trimmingSpaces().lowercased() {
        case "hangup", "hang-up", "hang_up": self = .hangup
        case "hold": self = .hold
        case "extend": self = .extend
        default: self = .command(text)
        }
    }

    public var description: String {
        switch self {
        case .command: "command"
        case .hangup: "hangup"
        case .hold: "hold"
        case .extend: "extend"
        }
    }
}

/// One `[actions.NAME]` section: a DTMF code, what it runs, who may use it.
public struct DoorAction: Sendable, Equatable {
    /// The section's NAME: what logs, events and call records show (never the code).
    public var name: String
    /// The keys (`0-9 * # A-D`), a secret: never logged, never in an event, never in argv.
    public var code: Secret
    public var run: DoorActionRun
    /// Caller patterns as the answer rules have (`*`, `?`); empty = any caller.
    public var callers: [String] = []
    /// Play the OK tone (or the error tone when the command fails) into the call.
    public var tone = true
    /// Hang up this many seconds after the action ran; nil = no.
    public var hangupAfter: Double?

    /// Whether `caller` may use this action.
    func allows(caller: String?) -> Bool {
        guard !callers.isEmpty else { return true }
        let candidates = [caller, caller.map(AnswerRule.userPart)].compactMap { $0 }
        return callers.contains { pattern in candidates.contains { Glob.matches(pattern, $0) } }
    }
}

/// The door-station settings: `[dtmf]`, `[actions]` + `[actions.NAME]`, `[limits]` and
/// `[announce]` (see docs/config.md). A value in `AgentConfig`.
public struct DoorStationConfig: Sendable, Equatable {
    /// `[dtmf] in_audio`: run the in-audio DTMF detector on every call.
    public var detectInAudio = true
    /// `[dtmf] merge_window`: seconds within which the same key from two sources is one press.
    public var mergeWindow = 0.4
    /// `[dtmf] events`: put the keys in `dtmf` events (`digits`) or not (`hidden`). Defaults to
    /// hidden when an action has a code (codes are secrets), else digits.
    public var showDigitsInEvents: Bool?
    /// `[actions.NAME]` in file order.
    public var actions: [DoorAction] = []
    /// `[actions] max_wrong`: wrong entries per call after which the call's keys are ignored.
    public var maxWrongPerCall = 3
    /// `[actions] caller_max_wrong` within `caller_window` seconds lock the caller out for `lockout` seconds.
    public var maxWrongPerCaller = 5
    public var callerWindow: Double = 600
    public var lockout: Double = 300
    /// `[actions] entry_timeout`: seconds without a key after which a partial entry is dropped.
    public var entryTimeout: Double = 5
    /// `[limits] max_call_time`: seconds an answered call may last (nil = no limit).
    public var maxCallTime: Double?
    /// `[limits] warning`: seconds before the end when the warning tone plays.
    public var warningBefore: Double = 10
    /// `[limits] extend_by`: seconds an `extend` action adds.
    public var extendBy: Double = 60
    /// `[announce] file`: a WAV file played into calls (`on_answer`), mixed or replacing the source.
    public var announceFile: String?
    public var announceOnAnswer = false
    public var announceMode: CallPromptStage.Mode = .mix

    public init() {}

    /// Whether `dtmf` events carry the keys.
    public var digitsInEvents: Bool { showDigitsInEvents ?? actions.isEmpty }

    /// The longest code's length (an entry that reaches it without matching is wrong).
    var longestCode: Int { actions.map { $0.code.value.count }.max() ?? 0 }

    static let sectionKeys: [String: Set<String>] = [
        "dtmf": ["in_audio", "merge_window", "events"],
        "actions": ["max_wrong", "caller_max_wrong", "caller_window", "lockout", "entry_timeout"],
        "limits": ["max_call_time", "warning", "extend_by"],
        "announce": ["file", "on_answer", "mode"],
    ]
    static let actionPrefix = "actions."
    static let actionKeys: Set<String> = ["code", "code_file", "run", "caller", "tone", "hangup_after"]

    /// Schema entries for the `[actions.NAME]` sections present in `file`.
    static func actionSchema(in file: ConfigFile) -> [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: file.sections.filter { $0.hasPrefix(actionPrefix) && $0.count > actionPrefix.count }.map { ($0, actionKeys) })
    }

    /// The keys a code may hold.
    static let codeKeys = Set("0123456789*#ABCD")

    /// Reads the sections from `file`. Errors name the file, line and key, never a code.
    static func load(from file: ConfigFile) throws -> DoorStationConfig {
        var config = DoorStationConfig()
        let dtmf = file.section("dtmf")
        if let v = try dtmf.bool("in_audio") { config.detectInAudio = v }
        if let v = try dtmf.seconds("merge_window", in: 0.05...2) { config.mergeWindow = v }
        if let v = try dtmf.custom("events", expected: "digits or hidden", { ["digits": true, "hidden": false][$0.lowercased()] }) {
            config.showDigitsInEvents = v
        }
        let actions = file.section("actions")
        if let v = try actions.int("max_wrong", in: 1...100) { config.maxWrongPerCall = v }
        if let v = try actions.int("caller_max_wrong", in: 1...1000) { config.maxWrongPerCaller = v }
        if let v = try actions.seconds("caller_window", in: 1...86_400) { config.callerWindow = v }
        if let v = try actions.seconds("lockout", in: 0...86_400) { config.lockout = v }
        if let v = try actions.seconds("entry_timeout", in: 0.5...120) { config.entryTimeout = v }
        let limits = file.section("limits")
        if let v = try limits.seconds("max_call_time", in: 0...86_400), v > 0 { config.maxCallTime = v }
        if let v = try limits.seconds("warning", in: 0...3_600) { config.warningBefore = v }
        if let v = try limits.seconds("extend_by", in: 1...86_400) { config.extendBy = v }
        let announce = file.section("announce")
        if let v = try announce.path("file") {
            config.announceFile = v
            do { _ = try WAVReader(path: v) } catch {
                throw ConfigError.at(file.path, line: announce.entry("file")?.line ?? 0, "cannot read the announcement \(v): \(error)")
            }
        }
        if let v = try announce.bool("on_answer") { config.announceOnAnswer = v }
        if let v = try announce.custom("mode", expected: "mix or replace", { CallPromptStage.Mode(rawValue: $0.lowercased()) }) {
            config.announceMode = v
        }
        if config.announceOnAnswer, config.announceFile == nil {
            throw ConfigError.at(file.path, line: announce.entry("on_answer")?.line ?? 0, "[announce] on_answer needs file = PATH")
        }
        for name in actionSchema(in: file).keys.sorted(by: { (file.sectionLines[$0] ?? 0) < (file.sectionLines[$1] ?? 0) }) {
            config.actions.append(try action(name, in: file))
        }
        var seen: [String: String] = [:]
        for action in config.actions {
            if let other = seen[action.code.value] {
                throw ConfigError.at(file.path, line: file.sectionLines[actionPrefix + action.name] ?? 0,
                                     "[actions.\(action.name)] has the same code as [actions.\(other)]")
            }
            seen[action.code.value] = action.name
        }
        return config
    }

    private static func action(_ section: String, in file: ConfigFile) throws -> DoorAction {
        let entries = file.section(section)
        let line = file.sectionLines[section] ?? 0
        let name = String(section.dropFirst(actionPrefix.count))
        var code: String
        if let path = try entries.path("code_file") {
            guard entries.entry("code") == nil else { throw ConfigError.at(file.path, line: line, "[\(section)] has both code and code_file") }
            code = try ConfigLoader.located(file, section, "code_file") { try ConfigLoader.readSecret(path: path, what: "code file") }
            code = code.trimmingSpaces()
        } else if let text = try entries.nonEmptyString("code") {
            code = text
        } else {
            throw ConfigError.at(file.path, line: line, "[\(section)] needs code = KEYS (or code_file = PATH)")
        }
        code = code.uppercased()
        // The message never repeats the code: it is a secret.
        guard (1...32).contains(code.count), code.allSatisfy(codeKeys.contains) else {
            throw ConfigError.at(file.path, line: entries.entry("code")?.line ?? line,
                                 "the code of [\(section)] must be 1 to 32 keys of 0-9, *, #, A-D")
        }
        guard let runText = try entries.nonEmptyString("run") else {
            throw ConfigError.at(file.path, line: line, "[\(section)] needs run = COMMAND, hangup, hold or extend")
        }
        var action = DoorAction(name: name, code: Secret(code), run: DoorActionRun(parsing: runText))
        if let v = try entries.nonEmptyString("caller") {
            action.callers = v.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        }
        if let v = try entries.bool("tone") { action.tone = v }
        if let v = try entries.seconds("hangup_after", in: 0...3_600) { action.hangupAfter = v }
        return action
    }
}
