import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// `[answer]` rules and the on_incoming hook's decision: the pure rule set, its config syntax,
/// and the real daemon deciding for calls from several callers on the emulator.
@Suite(.serialized) struct AnswerRulesTests {
    static func rules(_ text: String) throws -> AnswerRuleSet {
        let file = try ConfigFile.parse(text, path: "rules.conf")
        try file.validate(schema: ConfigLoader.fileSchema.merging(AnswerRuleSet.ruleSchema(in: file)) { a, _ in a })
        return try AnswerRuleSet.load(from: file)
    }

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// 2026-12-01 (a Tuesday) at HH:MM UTC.
    static func tuesday(_ hour: Int, _ minute: Int) -> Date {
        utc.date(from: DateComponents(year: 2026, month: 12, day: 1, hour: hour, minute: minute))!
    }

    @Test func globsMatchNumbersAndNames() {
        #expect(Glob.matches("2*", "2000") && Glob.matches("*", "") && Glob.matches("9???", "9123"))
        #expect(!Glob.matches("9???", "91234") && !Glob.matches("2*", "3000") && !Glob.matches("?", ""))
        #expect(Glob.matches("+4930*", "+49301234") && Glob.matches("*door*", "front door bell"))
        #expect(AnswerRule.userPart("sip:1001@pbx.test;user=phone") == "1001" && AnswerRule.userPart("1001") == "1001")
    }

    @Test func theFirstMatchingRuleDecidesAndEveryConditionMustHold() throws {
        let set = try Self.rules("""
        [answer]
        default = after:10
        [answer.night]
        time = 22:00-07:00
        days = mon-fri
        action = reject
        [answer.door]
        caller = 1001, sip:1002*
        name = Front Door*
        action = auto
        [answer.known]
        caller = 2*, +4930*
        action = after:2
        """)
        #expect(set.rules.map(\.name) == ["night", "door", "known"])
        func decide(_ caller: String?, _ name: String? = nil, at date: Date = AnswerRulesTests.tuesday(12, 0)) -> String {
            let d = set.decide(caller: caller, displayName: name, fallback: .manual, at: date, clock: WallClockTime.utc)
            return "\(d.action) \(d.source)"
        }
        #expect(decide("1001", "front door cam") == "auto rule door")       // names are case-insensitive
        #expect(decide("sip:1002@pbx", "Front Door") == "auto rule door")   // the SIP user part
        #expect(decide("1001", "Back Door") == "after:10.0 default")         // name condition fails
        #expect(decide("2345") == "after:2.0 rule known")
        #expect(decide("+49301234") == "after:2.0 rule known")
        #expect(decide("2345", at: Self.tuesday(23, 30)) == "reject rule night")  // wraps midnight
        #expect(decide("2345", at: Self.tuesday(6, 59)) == "reject rule night")
        #expect(decide("2345", at: Self.tuesday(7, 0)) == "after:2.0 rule known")  // the end is exclusive
        let saturday = Self.tuesday(23, 30).addingTimeInterval(4 * 86400)
        #expect(decide("2345", at: saturday) == "after:2.0 rule known")          // days: mon-fri only
        #expect(decide(nil) == "after:10.0 default")
        #expect(try Self.rules("[answer.x]\naction = manual\n").decide(caller: "1", displayName: nil, fallback: .auto).action == .answer(.manual))
        #expect(try Self.rules("[audio]\nanswer = auto\n").decide(caller: "1", displayName: nil, fallback: .auto).source == "default")
        #expect(try !Self.rules("[audio]\nanswer = auto\n").isConfigured && Self.rules("[answer]\n").isConfigured)
    }

    @Test func badRulesAreRefusedWithTheirLine() throws {
        let cases: [(String, String)] = [
            ("[answer.a]\ncaller = 1\n", "rules.conf:1: [answer.a] needs action"),
            ("[answer.a]\naction = maybe\n", "rules.conf:2: "),
            ("[answer.a]\naction = auto\ntime = 25:00-26:00\n", "invalid time window"),
            ("[answer.a]\naction = auto\ntime = 08:00\n", "invalid time window"),
            ("[answer.a]\naction = auto\ndays = someday\n", "invalid days"),
            ("[answer.a]\naction = auto\nwhen = now\n", "unknown key \"when\" in [answer.a]"),
            ("[answer]\ndefault = later\n", "invalid answer action"),
        ]
        for (text, message) in cases {
            #expect { try Self.rules(text) } throws: { "\($0)".contains(message) }
        }
        #expect(try AnswerRuleSet.window("00:00-24:00").contains(0) && AnswerRuleSet.window("00:00-24:00").contains(1439))
        #expect(try AnswerRuleSet.weekdays("fri-mon") == [6, 7, 1, 2])
    }

    @Test func theHookMayDecide() {
        #expect(AnswerRuleSet.hookDecision(in: "Bob\nanswer: reject\n") == .success(.reject))
        #expect(AnswerRuleSet.hookDecision(in: "answer=after:3") == .success(.answer(.after(3))))
        #expect(AnswerRuleSet.hookDecision(in: "Answerphone") == nil)
        if case .failure? = AnswerRuleSet.hookDecision(in: "answer: perhaps") {} else { Issue.record("a bad decision must be reported") }
        #expect(CallHooks.displayName(from: "answer: auto\nFront Door\n") == "Front Door")
        #expect(CallHooks.displayName(from: "answer: auto\n") == nil)
    }

    /// The real daemon: six callers, each decided by another rule, the hook, the time or the default.
    @Test func callsFromSeveralCallersAreDecidedByTheRules() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            let hook = h.scratch.file("lookup.sh")
            try """
            #!/bin/sh
            case "$WCS_CALLER" in
              3000) echo "Front Door" ;;
              6000) echo "Pest Control"; echo "answer: reject" ;;
              7000) echo "answer: auto" ;;
            esac
            """.write(toFile: hook, atomically: true, encoding: .utf8)
            chmod(hook, 0o755)
            let now = Self.localMinute()
            func hhmm(_ minute: Int) -> String { String(format: "%02d:%02d", ((minute % 1440) + 1440) % 1440 / 60, ((minute % 1440) + 1440) % 1440 % 60) }
            let config = h.scratch.file("agent.conf")
            try """
            [audio]
            answer = auto
            [hooks]
            on_incoming = \(hook)
            [answer]
            default = manual
            [answer.later-tonight]
            time = \(hhmm(now + 120))-\(hhmm(now + 180))
            action = reject
            [answer.door]
            name = front door
            action = auto
            [answer.known]
            caller = 2*
            action = after:1
            [answer.spam]
            caller = 9???
            action = reject
            [answer.just-now]
            caller = 8000
            time = \(hhmm(now - 15))-\(hhmm(now + 15))
            action = reject
            """.write(toFile: config, atomically: true, encoding: .utf8)
            try h.start(extra: ["--config", config, "--audio-source", "tone:880", "--audio-sink", "null"])

            func ring(_ caller: String) throws -> String {
                try h.emulator.control.ring(login: AgentHarness.login, caller: caller, source: "tone:440").callId
            }
            func state(_ id: String) throws -> String { try h.emulator.control.call(id)?.state ?? "?" }
            func record(_ id: String) throws -> CallRecord? { try CallRecordStore(directory: h.stateDir).read().first { $0.callId == id } }

            // Answered: by the hook's display name (at once), the caller pattern (after 1 s), the hook's own decision.
            for (caller, at) in [("3000", 0.0), ("2000", 1.0), ("7000", 0.0)] {
                let rang = Date()
                let id = try ring(caller)
                try h.waitFor("\(caller) answered", timeout: 20) { try state(id) == "established" }
                #expect(Date().timeIntervalSince(rang) >= at, "\(caller) answered before its after:\(at)")
                #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
                try h.waitFor("\(caller) recorded") { try record(id)?.endResult == .completed }
            }
            #expect(try record(try h.emulator.control.calls().first { $0.caller == "3000" }!.callId)?.displayName == "Front Door")
            // Declined as busy and recorded: a caller pattern, the hook's `answer: reject`, a time window around now.
            for caller in ["9123", "6000", "8000"] {
                let id = try ring(caller)
                try h.waitFor("\(caller) declined", timeout: 15) { try record(id)?.endResult == .busy }
                #expect(try h.emulator.control.call(id)?.endReason == "declined", "\(caller)")
            }
            // No rule: the default (manual) wins over [audio] answer = auto; it rings until declined by hand.
            let manual = try ring("5000")
            Thread.sleep(forTimeInterval: 2.5)
            #expect(try state(manual) == "ringing")
            #expect(try h.cli(["decline", manual, "--socket", h.socketPath]).code == 0)
            try h.waitFor("5000 recorded") { try record(manual)?.endResult == .declined }
            #expect(h.log().contains("rule spam decides reject") && h.log().contains("on_incoming decides reject"))
        }
    }

    /// Minutes after local midnight now (the daemon's time zone is this process's).
    static func localMinute() -> Int {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: Date())
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }
}
