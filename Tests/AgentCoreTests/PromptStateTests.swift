import TestSupport
import Foundation
import Testing
import WCSSession
@testable import AgentCore
@testable import AgentTools

/// The prompt's model, view and key decoding, from daemon JSON (no daemon needed).
struct PromptStateTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func status(_ calls: [JSONValue]) -> JSONValue {
        ["state": "online", "registered": true, "calls": .array(calls)]
    }

    static func call(_ id: String, _ status: String, started: Date = t0, extra: [String: JSONValue] = [:]) -> JSONValue {
        var o: [String: JSONValue] = ["call_id": .string(id), "direction": "incoming", "status": .string(status),
                                      "caller": "1002", "display_name": "Alice", "started": .string(AgentClock.iso(started))]
        o.merge(extra) { _, new in new }
        return .object(o)
    }

    @Test func aRingingCallRingsOnceAndCountsDown() {
        var state = PromptState()
        let first = state.apply(status: Self.status([Self.call("c1", "RING")]), now: Self.t0.addingTimeInterval(5))
        let second = state.apply(status: Self.status([Self.call("c1", "RING")]), now: Self.t0.addingTimeInterval(6))
        #expect(first && !second, "rings once")
        let lines = PromptView.lines(state, now: Self.t0.addingTimeInterval(5))
        #expect(lines.contains("Incoming call from Alice <1002>  [a]nswer  [d]ecline  (25 s)"))
        var timed = state
        _ = timed.apply(status: Self.status([Self.call("c1", "RING", extra: ["ring_timeout": 60])]), now: Self.t0)
        #expect(PromptView.lines(timed, now: Self.t0.addingTimeInterval(5)).contains { $0.hasSuffix("(55 s)") })
    }

    @Test func anEstablishedCallShowsDurationMuteAndHold() {
        var state = PromptState()
        let event: JSONValue = ["type": "call_status", "time": .string(AgentClock.iso(Self.t0)), "call_id": "c1",
                                "direction": "incoming", "status": "ESTABLISHED", "caller": "1002", "display_name": "Alice"]
        _ = state.apply(event: event, now: Self.t0)
        _ = state.apply(status: Self.status([Self.call("c1", "HOLD", extra: ["muted": true])]), now: Self.t0.addingTimeInterval(1))
        let lines = PromptView.lines(state, now: Self.t0.addingTimeInterval(75))
        #expect(lines.contains("Call with Alice <1002>  1:15  [muted]  [on hold]"))
        #expect(lines.last == PromptView.callKeys)
        #expect(state.activeCall?.callId == "c1")
    }

    @Test func anEndedCallIsNotedOnceAndNeverComesBack() {
        var state = PromptState()
        _ = state.apply(status: Self.status([Self.call("c1", "ESTABLISHED")]), now: Self.t0)
        let ended = state.apply(event: ["type": "call_ended", "call_id": "c1", "status": "FINISH", "duration_seconds": 12], now: Self.t0)
        #expect(ended.notes == ["Call with Alice <1002> ended (finish after 0:12)"])
        let again = state.apply(event: ["type": "call_status", "call_id": "c1", "status": "FINISH", "direction": "incoming"], now: Self.t0)
        #expect(again.notes.isEmpty)
        _ = state.apply(status: Self.status([Self.call("c1", "ESTABLISHED")]), now: Self.t0)  // a stale status
        #expect(state.calls.isEmpty)
    }

    /// A ringing call another device answered: the prompt says so, not "ended (finish)".
    @Test func aCallAnsweredElsewhereIsNotedAsSuch() {
        var state = PromptState()
        _ = state.apply(status: Self.status([Self.call("c2", "RING")]), now: Self.t0)
        let ended = state.apply(event: ["type": "call_ended", "call_id": "c2", "status": "FINISH", "end_result": "answered_elsewhere"],
                                now: Self.t0)
        #expect(ended.notes == ["Call with Alice <1002> ended (answered elsewhere)"])
    }

    static func actions(_ decoder: inout PromptKeyDecoder, _ bytes: [UInt8], typing: Bool) -> [PromptAction] {
        decoder.feed(bytes).compactMap { PromptKeyDecoder.action($0, typing: typing) }
    }

    @Test func keysDecodeAndEscapeSequencesAreSkipped() {
        var decoder = PromptKeyDecoder()
        let keys = Self.actions(&decoder, Array("adhpmt5*#q".utf8), typing: false)
        #expect(keys == [.answer, .decline, .hangup, .holdToggle, .muteToggle, .startTransfer, .dtmf("5"), .dtmf("*"), .dtmf("#"), .detach])
        let arrow = Self.actions(&decoder, [0x1B, 0x5B, 0x41, UInt8(ascii: "h")], typing: false)
        #expect(arrow == [.hangup])  // arrow up, then h
        let split = Self.actions(&decoder, [0x1B, 0x5B], typing: false)
        #expect(split.isEmpty)  // a split sequence...
        let rest = Self.actions(&decoder, [0x42, UInt8(ascii: "1")], typing: true)
        #expect(rest == [.type("1")])  // ...ends in the next read
        let edits = Self.actions(&decoder, [UInt8(ascii: "9"), 0x7F, 0x0D], typing: true)
        #expect(edits == [.type("9"), .backspace, .submit])
        let escape = Self.actions(&decoder, [0x1B], typing: true)
        #expect(escape == [.cancel])
        let controlC = Self.actions(&decoder, [0x03], typing: false)
        #expect(controlC == [.detach])
    }

    @Test func lineCommandsParse() {
        #expect(PromptLineCommand.parse("a") == [.answer])
        #expect(PromptLineCommand.parse("dtmf 12#") == [.dtmf("12#")])
        #expect(PromptLineCommand.parse("123") == [.dtmf("123")])
        #expect(PromptLineCommand.parse("t 1006") == [.transfer("1006")])
        #expect(PromptLineCommand.parse("t") == nil)
        #expect(PromptLineCommand.parse("bogus") == nil)
    }
}

