import AgentControl
import FoundationEssentials
import Testing
import WCSJSON

/// `ControlCoding` (JSONValueEncoder/JSONValueDecoder) against what it did before: JSONEncoder's
/// text parsed back, and JSONDecoder reading the value's text. Same values, and for bad
/// arguments the same `bad_request` words (`ControlCoding.describe`), for every type the control
/// wire carries.
@Suite struct ControlCodingReferenceTests {
    static func oldJSON<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValue.parse(JSONEncoder().encode(value))
    }

    /// The old decode, as a value or the described error.
    static func oldDecode<T: Decodable & Equatable>(_ type: T.Type, _ json: JSONValue) -> Result<T, DescribedError> {
        do {
            return .success(try JSONDecoder().decode(type, from: Data(json.serialized().utf8)))
        } catch {
            return .failure(DescribedError(text: ControlCoding.describe(error)))
        }
    }

    static func newDecode<T: Decodable & Equatable>(_ type: T.Type, _ json: JSONValue) -> Result<T, DescribedError> {
        do {
            return .success(try ControlCoding.decode(type, from: json))
        } catch {
            return .failure(DescribedError(text: ControlCoding.describe(error)))
        }
    }

    struct DescribedError: Error, Equatable {
        let text: String
    }

    static let status = StatusResult(state: "online", server: "wss://wcs.example:8443", sessionState: "established",
                                     registered: true, hasToken: true, resumes: 3, answerMode: "auto", logLevel: "info",
                                     calls: [["call_id": "c1", "state": "ringing", "muted": false, "duration": 1.5]],
                                     connectedSince: "2026-12-02T00:00:00Z", tokenAgeSeconds: 42, sessionId: "s-1",
                                     sipLogin: "1001", lastError: nil, nextRetryInSeconds: 0.25)

    @Test func everyTypeEncodesAsBefore() throws {
        var offline = Self.status
        offline.connectedSince = nil
        offline.tokenAgeSeconds = nil
        offline.calls = []
        offline.lastError = "could not resolve \"wcs.example\": é ✓ \u{1}"
        let values: [any Encodable] = [
            NoArguments(), HelloArguments(protocolVersion: 2, client: "wcs-agent 1"), HelloArguments(protocolVersion: 2, client: nil),
            CallArguments(callId: nil), CallArguments(callId: "c1"), DialArguments(number: "+49 30 1234"),
            DTMFArguments(digits: "12#", type: "info", callId: nil), TransferArguments(target: "3000", callId: "c2"),
            ReconnectArguments(), ReconnectArguments(push: ["id": "c1", "uuid": "u", "handle": "1002", "n": [1, 2.5, nil]]),
            HelloResult(protocolVersion: 2, version: "0.1.0"), CallResult(callId: "c"), MuteResult(callId: "c", muted: true),
            DTMFResult(callId: "c", digits: "1", via: "in_band"), TransferResult(callId: "c", target: "t"),
            CallsResult(calls: [["call_id": "c1"], ["call_id": "c2", "media": ["jitter_ms": 1.25]]]),
            ReloadResult(summary: "no changes", applied: [], reconnect: ["[server] url"], relogin: [], needsRestart: ["x"],
                         reconnected: false),
            MetricsResult(text: "# HELP x\nx 1\n"), Self.status, offline,
            ReconnectResult(status: Self.status, outcome: "resumed"), ReconnectResult(status: offline, outcome: nil),
            ReconnectResult(status: Self.status, outcome: nil, push: "ringing", callId: "c9"),
        ]
        for value in values {
            #expect(try ControlCoding.json(value) == Self.oldJSON(value), "\(type(of: value))")
        }
    }

    @Test func aNumberThatIsNotFiniteFailsAsBefore() {
        var status = Self.status
        status.nextRetryInSeconds = .infinity
        #expect(throws: EncodingError.self) { try ControlCoding.json(status) }
        #expect(throws: EncodingError.self) { try Self.oldJSON(status) }
    }

    @Test func goodAndBadArgumentsDecodeAsBefore() throws {
        let hello: [JSONValue] = [["protocol": 2], ["protocol": 2, "client": "x"], ["protocol": 2.0], ["protocol": 2.5],
                                  ["protocol": "2"], ["protocol": nil], [:], ["protocol": true], ["protocol": 1e20],
                                  ["protocol": 1e16], ["protocol": -3], ["protocol": 2, "client": 5], ["protocol": 2, "client": nil],
                                  [1, 2], "text", nil, 7]
        for json in hello { #expect(Self.newDecode(HelloArguments.self, json) == Self.oldDecode(HelloArguments.self, json), "\(json)") }
        let dtmf: [JSONValue] = [["digits": "12"], ["digits": 5], ["digits": nil], ["type": "info"], ["digits": "1", "call_id": ["x"]],
                                 ["digits": "1", "type": false], ["digits": "1", "extra": [1, 2, ["deep": nil]]]]
        for json in dtmf { #expect(Self.newDecode(DTMFArguments.self, json) == Self.oldDecode(DTMFArguments.self, json), "\(json)") }
        for json: JSONValue in [[:], ["ignored": true], nil, [], 3] {
            #expect(Self.newDecode(NoArguments.self, json) == Self.oldDecode(NoArguments.self, json), "\(json)")
        }
        for json: JSONValue in [[:], ["push": nil], ["push": ["id": "c1"]], ["push": "raw"], ["push": [1, nil]]] {
            #expect(Self.newDecode(ReconnectArguments.self, json) == Self.oldDecode(ReconnectArguments.self, json), "\(json)")
        }
        for json: JSONValue in [["number": "1"], ["number": 1], [:]] {
            #expect(Self.newDecode(DialArguments.self, json) == Self.oldDecode(DialArguments.self, json), "\(json)")
        }
    }

    /// Results as a daemon sends them, whole and with each key broken in turn (null, wrong kind, missing).
    @Test func resultsDecodeAsBefore() throws {
        let status = try ControlCoding.json(Self.status)
        let pushed = try ControlCoding.json(ReconnectResult(status: Self.status, outcome: "resumed", push: "missed", callId: "c"))
        guard case .object(let members) = pushed else { Issue.record("not an object"); return }
        var variants: [JSONValue] = [status, pushed]
        for key in members.keys.sorted() {
            for broken: JSONValue in [nil, "text", 1.5, true, [1], ["a": 1]] {
                var changed = members
                changed[key] = broken
                variants.append(.object(changed))
            }
            var missing = members
            missing[key] = nil
            variants.append(.object(missing))
        }
        for json in variants {
            #expect(Self.newDecode(ReconnectResult.self, json) == Self.oldDecode(ReconnectResult.self, json), "\(json.serialized())")
            #expect(Self.newDecode(StatusResult.self, json) == Self.oldDecode(StatusResult.self, json), "\(json.serialized())")
        }
        for json: JSONValue in [["calls": []], ["calls": [["call_id": "c"], nil, 3]], ["calls": nil], ["calls": "x"]] {
            #expect(Self.newDecode(CallsResult.self, json) == Self.oldDecode(CallsResult.self, json), "\(json)")
        }
        let reload: JSONValue = ["summary": "s", "applied": ["a", 1], "reconnect": [], "relogin": [], "needs_restart": [],
                                 "reconnected": false]
        #expect(Self.newDecode(ReloadResult.self, reload) == Self.oldDecode(ReloadResult.self, reload))
    }
}
