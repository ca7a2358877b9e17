import TestSupport
@testable import AgentCore
import AgentControl
import Foundation
import Testing

/// Door station logic without processes: one press per key whatever carried it, code entry
/// rules, lock-outs, and the `[actions]` config (clear errors that never repeat a code).
@Suite struct DoorActionLogicTests {
    @Test("A key carried by RFC 4733 and left in the audio is one press; 11 from one source is two")
    func mergerPairsAcrossSources() {
        var merger = DTMFKeyMerger(window: 0.4)
        let presses: [(Character, DTMFKeySource, Double)] = [
            ("1", .rfc4733, 0.00), ("1", .audio, 0.04), ("1", .rfc4733, 0.17), ("1", .audio, 0.21),
            ("1", .sipInfo, 0.30),  // the third source of the second press
            ("2", .audio, 0.5), ("2", .rfc4733, 1.2),  // outside the window: a new press
        ]
        let accepted = presses.map { merger.accept($0.0, from: $0.1, at: $0.2) }
        #expect(accepted == [true, false, true, false, false, true, true])
    }

    @Test("Entries: a code fires at its last key; # or the longest code's length ends a wrong entry; a pause drops it")
    func entryRules() {
        let codes = ["*1234#", "*99"]
        var entry = DTMFCodeEntry()
        var outcomes: [DTMFCodeEntry.Outcome] = []
        for (i, key) in "*1234#".enumerated() { outcomes.append(entry.press(key, at: Double(i) * 0.2, codes: codes, timeout: 5)) }
        #expect(outcomes.last == .matched(index: 0, keys: 6))
        #expect(outcomes.dropLast().allSatisfy { $0 == .pending })
        // A wrong first key is not revealed early: the entry goes on to the longest code's length.
        var wrong = DTMFCodeEntry()
        let results = "555555".enumerated().map { wrong.press($0.element, at: Double($0.offset), codes: codes, timeout: 5) }
        #expect(results.prefix(5).allSatisfy { $0 == .pending } && results.last == .wrong(keys: 6))
        var hashEnds = DTMFCodeEntry()
        _ = hashEnds.press("1", at: 0, codes: codes, timeout: 5)
        let r34628 = hashEnds.press("#", at: 0.1, codes: codes, timeout: 5)
        #expect(r34628 == .wrong(keys: 2))
        let r95867 = hashEnds.press("#", at: 0.2, codes: codes, timeout: 5)
        #expect(r95867 == .pending)  // # on an empty entry is ignored
        var paused = DTMFCodeEntry()
        _ = paused.press("*", at: 0, codes: codes, timeout: 5)
        _ = paused.press("9", at: 1, codes: codes, timeout: 5)
        let r7520 = paused.press("*", at: 7, codes: codes, timeout: 5)
        #expect(r7520 == .pending)  // the old "*9" was dropped
        let r73186 = paused.press("9", at: 7.1, codes: codes, timeout: 5)
        #expect(r73186 == .pending)
        let r45186 = paused.press("9", at: 7.2, codes: codes, timeout: 5)
        #expect(r45186 == .matched(index: 1, keys: 3))
    }

    @Test("Lock-out: the N-th wrong entry within the window locks the caller out for the lock-out time")
    func lockouts() {
        var lockouts = DTMFLockouts()
        let locks = [0.0, 70, 80, 90].map { lockouts.recordWrong("2000", at: $0, limit: 3, window: 60, lockout: 30) }
        #expect(locks == [false, false, false, true])  // the first one expired before the fourth
        #expect(lockouts.isLocked("2000", at: 100) && !lockouts.isLocked("2001", at: 100))
        #expect(!lockouts.isLocked("2000", at: 121))
    }

    static func load(_ text: String) throws -> AgentConfig {
        let scratch = ScratchDirectory()
        let path = scratch.write("agent.conf", text)
        return try ConfigLoader.load(arguments: ["--config", path, "--server", "ws://127.0.0.1:1"], environment: [:])
    }

    @Test("[actions] config: codes, built-ins, callers, limits; errors name the section and never the code")
    func config() throws {
        let config = try Self.load("""
            [dtmf]
            merge_window = 0.3
            [actions]
            max_wrong = 2
            lockout = 60
            [actions.door]
            code = *1234#
            run = /usr/local/bin/open-door --relay 1
            caller = 2000, 21*
            hangup_after = 3
            [actions.more]
            code = "#9"
            run = extend
            tone = no
            [limits]
            max_call_time = 120
            warning = 15
            """)
        let door = config.door
        #expect(door.actions.map(\.name) == ["door", "more"])
        #expect(door.actions[0].code.value == "*1234#" && door.actions[0].run == .command("/usr/local/bin/open-door --relay 1"))
        #expect(door.actions[0].callers == ["2000", "21*"] && door.actions[0].hangupAfter == 3)
        #expect(door.actions[0].allows(caller: "sip:2101@pbx") && !door.actions[0].allows(caller: "3000"))
        #expect(door.actions[1].run == .extend && !door.actions[1].tone)
        #expect(door.maxWrongPerCall == 2 && door.lockout == 60 && door.mergeWindow == 0.3)
        #expect(door.maxCallTime == 120 && door.warningBefore == 15)
        #expect(!door.digitsInEvents)
        #expect(!"\(config)".contains("1234"))
        for (text, message) in [
            ("[actions.door]\ncode = *12x4#\nrun = hangup\n", "the code of [actions.door] must be 1 to 32 keys"),
            ("[actions.door]\nrun = hangup\n", "[actions.door] needs code"),
            ("[actions.door]\ncode = 1234\n", "[actions.door] needs run"),
            ("[actions.a]\ncode = 1234\nrun = hold\n[actions.b]\ncode = 1234\nrun = hangup\n", "same code as [actions.a]"),
            ("[actions.door]\ncode = 1234\nrun = hold\nopen = yes\n", "unknown key \"open\""),
        ] {
            let error = #expect(throws: ConfigError.self) { try Self.load(text) }
            let said = error.map { "\($0)" } ?? ""
            #expect(said.contains(message), "\(said)")
            #expect(!said.contains("1234") && !said.contains("12x4"), "the error repeats the code: \(said)")
        }
    }
}
