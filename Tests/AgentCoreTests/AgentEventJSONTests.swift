import TestSupport
import Foundation
import Testing
import WCSSession
@testable import AgentCore

/// The wire JSON of every event type, pinned: scripts parse `events --json`, so keys, nulls and
/// absent fields must never change by accident. Each case is also decoded back to the same event.
struct AgentEventJSONTests {
    static let time = "2026-01-02T03:04:05.678Z"
    static let ringing = CallDescription(callId: "c1", direction: "incoming", status: "RING", started: time,
                                         caller: "1002", callee: "1001", displayName: "Alice")

    /// Every event type the daemon publishes, with the exact JSON it has always had.
    static let pinned: [(AgentEvent, String)] = [
        (.state("online"), #"{"state":"online","time":"T","type":"state"}"#),
        (.state("connecting", reason: "push for call c1"),
         #"{"reason":"push for call c1","state":"connecting","time":"T","type":"state"}"#),
        (.state("waiting_to_retry", retryInSeconds: 2.5),
         #"{"retry_in_seconds":2.5,"state":"waiting_to_retry","time":"T","type":"state"}"#),
        (.resumed(sessionId: "s1", pendingCalls: nil), #"{"session_id":"s1","time":"T","type":"resumed"}"#),
        (.resumed(sessionId: nil, pendingCalls: ["c1"]), #"{"pending_calls":["c1"],"session_id":null,"time":"T","type":"resumed"}"#),
        (.resumed(sessionId: "s1", pendingCalls: nil, timeMicroseconds: 1_796_166_000_123_456),
         #"{"session_id":"s1","time":"T","time_us":1796166000123456,"type":"resumed"}"#),
        (.loggedIn(sessionId: "s1"), #"{"session_id":"s1","time":"T","type":"logged_in"}"#),
        (.reloggedIn(sessionId: nil), #"{"session_id":null,"time":"T","type":"relogged_in"}"#),
        (.registrationFailed(.login(error: "SIP registration failed: AUTHENTICATION_FAIL")),
         #"{"error":"SIP registration failed: AUTHENTICATION_FAIL","time":"T","type":"registration_failed"}"#),
        (.registrationFailed(.reported(status: "AUTHENTICATION_FAIL", info: nil)),
         #"{"info":null,"status":"AUTHENTICATION_FAIL","time":"T","type":"registration_failed"}"#),
        (.failed(error: "token refused"), #"{"error":"token refused","time":"T","type":"failed"}"#),
        (.missedCall(callId: "c1", caller: nil, uuid: "u1"), #"{"call_id":"c1","caller":null,"time":"T","type":"missed_call","uuid":"u1"}"#),
        (.sessionLostWhileAsleep(aliveUntil: "2026-12-08T00:00:00.000Z", detectedBy: "refresh"),
         #"{"alive_until":"2026-12-08T00:00:00.000Z","detected_by":"refresh","time":"T","type":"session_lost_while_asleep"}"#),
        (.sessionState("registered"), #"{"state":"registered","time":"T","type":"session_state"}"#),
        (.disconnected(reason: "closed by us"), #"{"reason":"closed by us","time":"T","type":"disconnected"}"#),
        (.transfer(callId: "c1", status: "TRYING", info: nil), #"{"call_id":"c1","info":null,"status":"TRYING","time":"T","type":"transfer"}"#),
        (.data(payload: ["k": 1]), #"{"payload":{"k":1},"time":"T","type":"data"}"#),
        (.dataStatus(operationId: "o1", status: "ACCEPTED", info: nil),
         #"{"info":null,"operation_id":"o1","status":"ACCEPTED","time":"T","type":"data_status"}"#),
        (.serverDebug(status: "STARTED", file: nil), #"{"file":null,"status":"STARTED","time":"T","type":"server_debug"}"#),
        (.warning(message: "malformed frame"), #"{"message":"malformed frame","time":"T","type":"warning"}"#),
        (.incomingCall(ringing, replayed: false, ringTimeout: 30),
         #"{"call_id":"c1","callee":"1001","caller":"1002","direction":"incoming","display_name":"Alice","replayed":false,"ring_timeout":30,"started":"T","status":"RING","time":"T","type":"incoming_call"}"#),
        (.callStatus(CallDescription(callId: "c1", direction: "outgoing", status: "ESTABLISHED", started: time, callee: "3000",
                                     info: "talking")),
         #"{"call_id":"c1","callee":"3000","direction":"outgoing","info":"talking","started":"T","status":"ESTABLISHED","time":"T","type":"call_status"}"#),
        (.callStatus(CallDescription(callId: "c1", direction: nil, status: "FINISH", started: nil, info: "the server session was lost")),
         #"{"call_id":"c1","info":"the server session was lost","status":"FINISH","time":"T","type":"call_status"}"#),
        (.callRejected(callId: "c3", reason: "busy", caller: nil, maxCalls: 2),
         #"{"call_id":"c3","caller":null,"max_calls":2,"reason":"busy","time":"T","type":"call_rejected"}"#),
        (.callUpdated(callId: "c1", displayName: "Bob", source: "on_incoming"),
         #"{"call_id":"c1","display_name":"Bob","source":"on_incoming","time":"T","type":"call_updated"}"#),
        (.callControl(CallControlChange(callId: "c1", action: "held", held: true, muted: false)),
         #"{"action":"held","call_id":"c1","held":true,"muted":false,"time":"T","type":"call_control"}"#),
        (.callControl(CallControlChange(callId: "c1", action: "dtmf", held: false, muted: true, digits: "12#", via: "in_band")),
         #"{"action":"dtmf","call_id":"c1","digits":"12#","held":false,"muted":true,"time":"T","type":"call_control","via":"in_band"}"#),
        (.callControl(CallControlChange(callId: "c1", action: "transfer", held: true, muted: false, target: "3000")),
         #"{"action":"transfer","call_id":"c1","held":true,"muted":false,"target":"3000","time":"T","type":"call_control"}"#),
        (.callEnded(CallEndReport(callId: "c1", direction: "incoming", status: "FINISH", declined: true, info: nil, stats: nil,
                                  recording: nil, durationSeconds: nil, endResult: "declined", displayName: nil)),
         #"{"call_id":"c1","declined":true,"direction":"incoming","end_result":"declined","status":"FINISH","time":"T","type":"call_ended"}"#),
        (.callEnded(CallEndReport(callId: "c1", direction: "outgoing", status: "FINISH", declined: false, info: "Normal call clearing",
                                  stats: ["codec": "opus"], recording: "/r/c1.wav", durationSeconds: 12.3, endResult: "completed",
                                  displayName: "Alice")),
         #"{"call_id":"c1","declined":false,"direction":"outgoing","display_name":"Alice","duration_seconds":12.3,"end_result":"completed","info":"Normal call clearing","recording":"/r/c1.wav","stats":{"codec":"opus"},"status":"FINISH","time":"T","type":"call_ended"}"#),
        (.media(callId: "c1", .iceConnected(pair: "host->host")),
         #"{"call_id":"c1","pair":"host->host","step":"ice_connected","time":"T","type":"media"}"#),
        (.media(callId: "c1", .dtlsConnected(profile: "SRTP_AES128_CM_SHA1_80")),
         #"{"call_id":"c1","profile":"SRTP_AES128_CM_SHA1_80","step":"dtls_connected","time":"T","type":"media"}"#),
        (.media(callId: "c1", .firstAudio(latencyMs: nil)), #"{"call_id":"c1","latency_ms":null,"step":"first_audio","time":"T","type":"media"}"#),
        (.media(callId: "c1", .firstAudio(latencyMs: 41.5)), #"{"call_id":"c1","latency_ms":41.5,"step":"first_audio","time":"T","type":"media"}"#),
        (.media(callId: "c1", .firstAudio(latencyMs: 41.5, timeMicroseconds: 1_764_633_600_123_456)),
         #"{"call_id":"c1","latency_ms":41.5,"step":"first_audio","time":"T","time_us":1764633600123456,"type":"media"}"#),
        (.mediaFailed(callId: "c1", reason: "no media"), #"{"call_id":"c1","reason":"no media","time":"T","type":"media_failed"}"#),
        (.dtmf(callId: "c1", digit: "5"), #"{"call_id":"c1","digit":"5","time":"T","type":"dtmf"}"#),
    ]

    static func wire(_ text: String) -> String { text.replacingOccurrences(of: "\"T\"", with: "\"\(time)\"") }

    @Test func everyEventKeepsItsWireJSON() throws {
        for (event, expected) in Self.pinned {
            #expect(TimedAgentEvent(event, time: Self.time).json.serialized() == Self.wire(expected), "\(event.type)")
        }
    }

    @Test func everyEventDecodesBackToItself() throws {
        for (event, expected) in Self.pinned {
            let decoded = try JSONDecoder().decode(TimedAgentEvent.self, from: Data(Self.wire(expected).utf8))
            #expect(decoded == TimedAgentEvent(event, time: Self.time), "\(event.type)")
        }
    }

    @Test func everyEventTypeIsPinned() {
        let pinnedTypes = Set(Self.pinned.map(\.0.type))
        let known: Set<String> = ["state", "resumed", "logged_in", "relogged_in", "registration_failed", "failed", "missed_call",
                                  "session_lost_while_asleep",
                                  "session_state", "disconnected", "transfer", "data", "data_status", "server_debug", "warning",
                                  "incoming_call", "call_status", "call_rejected", "call_updated", "call_control", "call_ended",
                                  "media", "media_failed", "dtmf"]
        #expect(pinnedTypes == known)
    }

    @Test func anUnknownOrIncompleteEventIsKeptAsOther() throws {
        let newer = try #require(TimedAgentEvent(json: try JSONValue.parse(#"{"type":"future_thing","x":1,"time":"T"}"#)))
        #expect(newer.event == .other(type: "future_thing", fields: ["x": 1]))
        #expect(newer.json.serialized() == #"{"time":"T","type":"future_thing","x":1}"#)
        let incomplete = try #require(TimedAgentEvent(json: try JSONValue.parse(#"{"type":"dtmf","call_id":"c1"}"#)))
        #expect(incomplete.event == .other(type: "dtmf", fields: ["call_id": "c1"]))
        #expect(TimedAgentEvent(json: ["no": "type"]) == nil)
    }
}

/// `wcs-agent events` without `--json` renders the decoded `AgentEvent`.
struct AgentEventLineTests {
    @Test func eventLinesComeFromTheTypedEvent() throws {
        func line(_ event: AgentEvent) -> String {
            StatusFormatter.event(TimedAgentEvent(event, time: AgentEventJSONTests.time).json)
        }
        #expect(line(.incomingCall(AgentEventJSONTests.ringing, replayed: true, ringTimeout: 30))
            == "03:04:05.678 incoming_call c1 from Alice <1002> (after resume)")
        #expect(line(.callStatus(CallDescription(callId: "c1", direction: nil, status: "FINISH", started: nil, info: "gone")))
            == "03:04:05.678 call_status c1 FINISH (gone)")
        #expect(line(.state("online")) == "03:04:05.678 state online")
        #expect(line(.dtmf(callId: "c1", digit: "5")) == #"03:04:05.678 dtmf {"call_id":"c1","digit":"5"}"#)
        #expect(line(.other(type: "future_thing", fields: ["x": 1])) == #"03:04:05.678 future_thing {"x":1}"#)
    }
}
