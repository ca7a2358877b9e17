import FoundationEssentials

/// Reading `[answer]` and the `[answer.NAME]` rule sections from the config file (ConfigLoader
/// calls these). Lists are comma-separated; every mistake is a `ConfigError` with file and line.
extension AnswerRuleSet {
    /// Rule sections are `[answer.NAME]`.
    static let rulePrefix = "answer."
    /// Keys of `[answer]`.
    static let keys: Set<String> = ["default", "hook"]
    /// Keys of a rule section.
    static let ruleKeys: Set<String> = ["caller", "name", "time", "days", "action"]
    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Schema entries for the rule sections present in `file` (their names are the user's).
    static func ruleSchema(in file: ConfigFile) -> [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: file.sections.filter { $0.hasPrefix(rulePrefix) && $0.count > rulePrefix.count }.map { ($0, ruleKeys) })
    }

    /// The rules of `file`, in file order.
    static func load(from file: ConfigFile) throws -> AnswerRuleSet {
        var set = AnswerRuleSet()
        let answer = file.section("answer")
        set.isConfigured = file.sections.contains { $0 == "answer" || $0.hasPrefix(rulePrefix) }
        if let v = try answer.nonEmptyString("default") { set.defaultAction = try ConfigLoader.located(file, "answer", "default") { try AnswerAction(parsing: v) } }
        if let v = try answer.bool("hook") { set.consultsHook = v }
        for name in ruleSchema(in: file).keys.sorted(by: { (file.sectionLines[$0] ?? 0) < (file.sectionLines[$1] ?? 0) }) {
            let section = file.section(name)
            guard let actionText = try section.nonEmptyString("action") else {
                throw ConfigError.at(file.path, line: file.sectionLines[name] ?? 0, "[\(name)] needs action = auto, after:SECONDS, manual or reject")
            }
            var rule = AnswerRule(name: String(name.dropFirst(rulePrefix.count)),
                                  action: try ConfigLoader.located(file, name, "action") { try AnswerAction(parsing: actionText) })
            if let v = try section.nonEmptyString("caller") { rule.callers = list(v) }
            if let v = try section.nonEmptyString("name") { rule.names = list(v) }
            if let v = try section.nonEmptyString("time") { rule.times = try ConfigLoader.located(file, name, "time") { try list(v).map(window) } }
            if let v = try section.nonEmptyString("days") { rule.weekdays = try ConfigLoader.located(file, name, "days") { try weekdays(v) } }
            set.rules.append(rule)
        }
        return set
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }

    /// `HH:MM-HH:MM` (24 h, local time; `24:00` allowed as an end).
    static func window(_ text: String) throws -> TimeOfDayWindow {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
        func minutes(_ part: Substring) -> Int? {
            let hm = part.trimmingSpaces().split(separator: ":", omittingEmptySubsequences: false)
            guard hm.count == 2, hm[0].count <= 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0...59).contains(m),
                  (0...23).contains(h) || (h == 24 && m == 0) else { return nil }
            return h * 60 + m
        }
        guard bounds.count == 2, let start = minutes(bounds[0]), start < 24 * 60, let end = minutes(bounds[1]), start != end || start == 0 else {
            throw ConfigError("invalid time window \"\(text)\": expected HH:MM-HH:MM, e.g. 08:00-18:00 or 22:00-07:00")
        }
        return TimeOfDayWindow(start: start, end: end == 0 && start == 0 ? 24 * 60 : end)
    }

    /// `mon-fri, sun` as `Calendar` weekdays (1 = Sunday).
    static func weekdays(_ text: String) throws -> Set<Int> {
        var days: Set<Int> = []
        for item in list(text) {
            let ends = item.lowercased().split(separator: "-").map { String($0.prefix(3)) }
            guard (1...2).contains(ends.count), let first = dayNames.firstIndex(of: ends[0]), let last = dayNames.firstIndex(of: ends.last!) else {
                throw ConfigError("invalid days \"\(text)\": expected names like mon, tue ... sun or ranges like mon-fri")
            }
            var day = first
            while true {
                days.insert(day + 1)
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        return days
    }
}
