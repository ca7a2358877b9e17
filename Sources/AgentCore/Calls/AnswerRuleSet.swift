import FoundationEssentials

/// The `[answer]` configuration: rules tried in file order, the first match decides; without a
/// match, `default` (else `[audio] answer`). When `hook` is on (the default) and `on_incoming` is
/// set, the decision waits for the hook (at most its timeout): the hook's display name is what
/// `name` patterns see, and a hook that prints `answer: ACTION` decides by itself.
/// Without any `[answer]` section the set is empty and calls are answered as `[audio] answer`
/// says, at once (the hook then only names the caller, as before).
///
/// A value in `AgentConfig`; `decide` is pure (the time and the wall clock are arguments).
public struct AnswerRuleSet: Sendable, Equatable {
    public var rules: [AnswerRule] = []
    /// `[answer] default`; nil = `[audio] answer`.
    public var defaultAction: AnswerAction?
    /// `[answer] hook`: whether `on_incoming` is waited for and may decide.
    public var consultsHook = true
    /// Whether the config has an `[answer]` section at all.
    public var isConfigured = false

    public init() {}

    /// The decision for a call and what made it (`rule NAME`, `default`).
    public struct Decision: Sendable, Equatable {
        public var action: AnswerAction
        public var source: String
    }

    /// The first matching rule's action, else the default (`fallback` = `[audio] answer`).
    /// `clock` reads the rules' hours and weekdays off `date` (the local wall clock; tests use UTC).
    func decide(caller: String?, displayName: String?, fallback: AnswerMode, at date: Date = Date(),
                clock: (Date) -> WallClockTime = WallClockTime.local) -> Decision
    {
        let time = clock(date)
        if let rule = rules.first(where: { $0.matches(caller: caller, displayName: displayName, at: time) }) {
            return Decision(action: rule.action, source: "rule \(rule.name)")
        }
        return Decision(action: defaultAction ?? .answer(fallback), source: "default")
    }

    /// A decision printed by `on_incoming`: a line `answer: ACTION` (or `answer=ACTION`); nil when
    /// there is none or it does not parse (logged by the caller).
    static func hookDecision(in output: String) -> Result<AnswerAction, ConfigError>? {
        for line in output.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingSpaces()
            guard trimmed.lowercased().hasPrefix("answer"), let separator = trimmed.dropFirst(6).first, separator == ":" || separator == "=" else { continue }
            do {
                return .success(try AnswerAction(parsing: String(trimmed.dropFirst(7))))
            } catch {
                return .failure(error as? ConfigError ?? ConfigError("\(error)"))
            }
        }
        return nil
    }

    /// Whether `line` of the hook's output is a decision line (so it is not taken as a name).
    static func isDecisionLine(_ line: String) -> Bool {
        hookDecision(in: line) != nil
    }
}
