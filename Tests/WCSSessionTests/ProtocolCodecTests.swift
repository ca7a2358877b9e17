@testable import WCSSession
import Testing

@Suite struct ClientMessageEncodingTests {
    @Test func freshConnectionCarriesSIPFieldsAndKeepAlive() throws {
        var r = ConnectionRequest()
        r.sip = SIPCredentials(login: "1001", password: Secret("pw-secret"), domain: "pbx", port: 5060)
        let v = try JSONValue.parse(ClientMessage.connection(r).encoded())
        #expect(v["message"] == "connection")
        let d = try #require(v["data"]?[0])
        #expect(d["sipLogin"] == "1001")
        #expect(d["sipAuthenticationName"] == "1001")
        #expect(d["sipPassword"] == "pw-secret")
        #expect(d["sipPort"]?.intValue == 5060)
        #expect(d["keepAlive"] == true)
        #expect(d["sipRegisterRequired"] == true)
        #expect(d["authToken"] == nil)
        #expect(d["mediaProviders"] == ["WebRTC"])
    }

    @Test func resumeSendsTokenAndNoSIPFields() throws {
        var r = ConnectionRequest()
        r.authToken = Secret("tok-1")
        let d = try #require(try JSONValue.parse(ClientMessage.connection(r).encoded())["data"]?[0])
        #expect(d["authToken"] == "tok-1")
        #expect(d["sipLogin"] == nil && d["sipPassword"] == nil && d["sipRegisterRequired"] == nil)
    }

    @Test func logDescriptionHidesSecretsAndSDP() {
        var r = ConnectionRequest()
        r.authToken = Secret("tok-VERYSECRET")
        r.sip = SIPCredentials(login: "1001", password: Secret("pw-VERYSECRET"))
        let line = ClientMessage.connection(r).logDescription
        #expect(!line.contains("VERYSECRET"))
        #expect(line.contains("<redacted>"))
        let answer = ClientMessage.answer(callId: "c1", callee: "1001", sdp: "v=0\r\nsecret-ish").logDescription
        #expect(!answer.contains("v=0"))
        #expect("\(Secret("abc"))" == "<redacted>")
    }

    @Test func pongAndCallMessagesHaveTheDocumentedShape() throws {
        #expect(try JSONValue.parse(ClientMessage.pong.encoded()) == ["message": "pong", "data": [nil]])
        let call = OutgoingCallRequest(callId: "c1", callee: "1002", caller: "1001", sdp: "v=0")
        let d = try #require(try JSONValue.parse(ClientMessage.call(call).encoded())["data"]?[0])
        #expect(d["incoming"] == false && d["status"] == "PENDING" && d["visibleName"] == "1001")
        let hold = try JSONValue.parse(ClientMessage.hold(callId: "c1", forTransfer: true).encoded())
        #expect(hold["data"]?[0]?["holdForTransfer"] == true)
        let dtmf = try JSONValue.parse(ClientMessage.sendDtmf(callId: "c1", digits: "12#", type: .info).encoded())
        #expect(dtmf["data"]?[0]?["type"] == "INFO" && dtmf["data"]?[0]?["dtmf"] == "12#")
    }
}

@Suite struct ServerMessageDecodingTests {
    @Test func getUserDataNeedsAToken() throws {
        let m = try ServerMessageDecoder.decode(
            #"{"message":"getUserData","data":[{"authToken":"t1","sipLogin":"1001","sipPort":"5060","status":"ESTABLISHED"}]}"#)
        guard case .getUserData(let u) = m else { Issue.record("wrong case \(m)"); return }
        #expect(u.authToken.value == "t1" && u.sipLogin == "1001")
        #expect(throws: ProtocolError.self) { try ServerMessageDecoder.decode(#"{"message":"getUserData","data":[{}]}"#) }
    }

    @Test func pingToleratesMissingOrNullData() throws {
        #expect(try ServerMessageDecoder.decode(#"{"message":"ping"}"#) == .ping)
        #expect(try ServerMessageDecoder.decode(#"{"message":"ping","data":[null]}"#) == .ping)
        #expect(try ServerMessageDecoder.decode(#"{"message":"ping","data":[]}"#) == .ping)
    }

    @Test func setRemoteSDPIsPositional() throws {
        #expect(try ServerMessageDecoder.decode(#"{"message":"setRemoteSDP","data":["c1","v=0\r\n",false]}"#)
            == .setRemoteSDP(callId: "c1", sdp: "v=0\r\n"))
        #expect(throws: ProtocolError.self) { try ServerMessageDecoder.decode(#"{"message":"setRemoteSDP","data":["c1"]}"#) }
    }

    @Test func callStatusMessagesApplyTheirStatus() throws {
        let m = try ServerMessageDecoder.decode(#"{"message":"finish","data":[{"callId":"c1","status":"BUSY"}]}"#)
        guard case .callStatus(let name, let call) = m else { Issue.record("wrong case"); return }
        #expect(name == "finish" && call.status == .busy && call.status.isTerminal)
        let talk = try ServerMessageDecoder.decode(#"{"message":"talk","data":[{"callId":"c1"}]}"#)
        guard case .callStatus(_, let t) = talk else { Issue.record("wrong case"); return }
        #expect(t.status == .established)
        let legacy = try ServerMessageDecoder.decode(#"{"message":"sessionProgress","data":[{"callId":"c2","status":"SESSION_PROGRESS"}]}"#)
        guard case .callStatus(_, let p) = legacy else { Issue.record("wrong case"); return }
        #expect(p.status == .sessionProgress)
    }

    @Test func incomingCallAndFailReadTolerantly() throws {
        let m = try ServerMessageDecoder.decode(
            #"{"message":"notifyIncomingCall","data":[{"callId":"i1","incoming":true,"caller":"1002","visibleName":"Bob","status":"RING","uuid":"u-1"}]}"#)
        guard case .notifyIncomingCall(let c) = m else { Issue.record("wrong case"); return }
        #expect(c.caller == "1002" && c.visibleName == "Bob" && c.status == .ring && c.uuid == "u-1")
        let f = try ServerMessageDecoder.decode(#"{"message":"fail","data":[{"apiMethod":"CallStatusEvent","id":"c9","info":"x"}]}"#)
        #expect(f == .fail(FailInfo(["apiMethod": "CallStatusEvent", "id": "c9", "info": "x"])))
        let bare = try ServerMessageDecoder.decode(#"{"message":"fail"}"#)
        guard case .fail(let info) = bare else { Issue.record("wrong case"); return }
        #expect(info.apiMethod == nil)
    }

    @Test func unknownNamesAndMalformedFramesNeverCrash() throws {
        #expect(try ServerMessageDecoder.decode(#"{"message":"notifyStreamEvent","data":[{}]}"#) == .unknown(name: "notifyStreamEvent"))
        for bad in ["{\"message\":", "[1,2]", "{}", "{\"message\":5}", "null", "", "{\"message\":\"setRemoteSDP\",\"data\":null}",
                    "{\"message\":\"notifyIncomingCall\",\"data\":[\"x\"]}", "\u{0}\u{1}"] {
            #expect(throws: ProtocolError.self) { try ServerMessageDecoder.decode(bad) }
        }
    }

    @Test func dataAndDebugStatusesAreTyped() throws {
        #expect(try ServerMessageDecoder.decode(#"{"message":"DataStatusEvent","data":[{"operationId":"o1","status":"ACCEPTED"}]}"#)
            == .dataStatus(operationId: "o1", status: "ACCEPTED", info: nil))
        #expect(try ServerMessageDecoder.decode(#"{"message":"notifySessionDebugEvent","data":[{"status":"STOPPED","file":"logs/x.log"}]}"#)
            == .sessionDebugStatus(status: "STOPPED", file: "logs/x.log"))
        let send = try JSONValue.parse(ClientMessage.sendData(operationId: "o1", payload: ["k": 1]).encoded())
        #expect(send["data"]?[0]?["operationId"] == "o1" && send["data"]?[0]?["payload"]?["k"]?.intValue == 1)
        #expect(try JSONValue.parse(ClientMessage.sessionDebug(start: true).encoded())["data"]?[0]?["command"] == "start")
    }

    @Test func registeredWithFailureStatusIsVisible() throws {
        #expect(try ServerMessageDecoder.decode(#"{"message":"registered","data":[{"status":"REGISTERED"}]}"#)
            == .registered(status: "REGISTERED", info: nil))
        #expect(try ServerMessageDecoder.decode(#"{"message":"registered"}"#) == .registered(status: nil, info: nil))
    }
}
