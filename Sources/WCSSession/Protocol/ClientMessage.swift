/// SIP account fields sent in a fresh `connection` (protocol doc §2.1).
public struct SIPCredentials: Sendable, Equatable {
    /// SIP user (AOR user part), `sipLogin`.
    public var login: String
    /// SIP digest user name, `sipAuthenticationName`; defaults to `login`.
    public var authenticationName: String
    /// SIP digest password, `sipPassword`. Never logged.
    public var password: Secret
    /// `sipDomain`.
    public var domain: String?
    /// `sipOutboundProxy`.
    public var outboundProxy: String?
    /// `sipPort`.
    public var port: Int?
    /// `sipVisibleName` (display name).
    public var visibleName: String?

    public init(login: String, authenticationName: String? = nil, password: Secret, domain: String? = nil,
                outboundProxy: String? = nil, port: Int? = nil, visibleName: String? = nil)
    {
        self.login = login
        self.authenticationName = authenticationName ?? login
        self.password = password
        self.domain = domain
        self.outboundProxy = outboundProxy
        self.port = port
        self.visibleName = visibleName
    }
}

/// The `connection` message, the first frame on every socket (protocol doc §2.1).
public struct ConnectionRequest: Sendable, Equatable {
    public var appKey: String = "defaultApp"
    public var mediaProviders: [String] = ["WebRTC"]
    /// Ask the server to keep the session after the socket closes (§5).
    public var keepAlive: Bool = true
    /// Present only when resuming a kept session.
    public var authToken: Secret?
    public var clientVersion: String = "2.0"
    public var clientOSVersion: String?
    public var clientBrowserVersion: String?
    /// SIP fields; absent on a token resume (as the JS and Android clients do).
    public var sip: SIPCredentials?
    /// `sipRegisterRequired`; sent only with `sip`.
    public var registerRequired: Bool = true
    /// Opaque object passed to the server's backend hooks.
    public var custom: JSONValue?

    public init() {}

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "appKey": .string(appKey),
            "mediaProviders": .array(mediaProviders.map { .string($0) }),
            "keepAlive": .bool(keepAlive),
            "clientVersion": .string(clientVersion),
        ]
        if let authToken { o["authToken"] = .string(authToken.value) }
        if let clientOSVersion { o["clientOSVersion"] = .string(clientOSVersion) }
        if let clientBrowserVersion { o["clientBrowserVersion"] = .string(clientBrowserVersion) }
        if let custom { o["custom"] = custom }
        if let sip {
            o["sipLogin"] = .string(sip.login)
            o["sipAuthenticationName"] = .string(sip.authenticationName)
            o["sipPassword"] = .string(sip.password.value)
            if let d = sip.domain { o["sipDomain"] = .string(d) }
            if let p = sip.outboundProxy { o["sipOutboundProxy"] = .string(p) }
            if let p = sip.port { o["sipPort"] = .number(Double(p)) }
            if let v = sip.visibleName { o["sipVisibleName"] = .string(v) }
            o["sipRegisterRequired"] = .bool(registerRequired)
        }
        return .object(o)
    }
}

/// The `call` message: an outgoing SIP call with our SDP offer (protocol doc §2.4).
public struct OutgoingCallRequest: Sendable, Equatable {
    public var callId: String
    public var callee: String
    /// `sipLogin` from the server's `getUserData` (not from local options).
    public var caller: String
    public var visibleName: String
    public var sdp: String
    public var hasAudio = true
    public var hasVideo = false
    public var custom: JSONValue?
    /// Custom INVITE parameters (`inviteParameters`, mobile-SDK key).
    public var inviteParameters: [String: String]?

    public init(callId: String, callee: String, caller: String, visibleName: String? = nil, sdp: String) {
        self.callId = callId
        self.callee = callee
        self.caller = caller
        self.visibleName = visibleName ?? caller
        self.sdp = sdp
    }
}

/// A message the client sends. `encoded()` gives the wire frame; `logDescription` is safe to log.
public enum ClientMessage: Sendable, Equatable {
    case connection(ConnectionRequest)
    case pong
    case ping
    case call(OutgoingCallRequest)
    /// Accept an incoming call with our SDP answer (§2.5).
    case answer(callId: String, callee: String?, sdp: String)
    case hangup(callId: String)
    case hold(callId: String, forTransfer: Bool)
    case unhold(callId: String)
    case sendDtmf(callId: String, digits: String, type: DTMFType)
    case transfer(callId: String, target: String)
    /// App data for the server's backend (§2.11); answered by `DataStatusEvent` with the same id.
    case sendData(operationId: String, payload: JSONValue)
    /// Server-side debug logging for this session on or off (§2.12).
    case sessionDebug(start: Bool)

    /// The message name on the wire.
    public var name: String {
        switch self {
        case .connection: "connection"
        case .pong: "pong"
        case .ping: "ping"
        case .call: "call"
        case .answer: "answer"
        case .hangup: "hangup"
        case .hold: "hold"
        case .unhold: "unhold"
        case .sendDtmf: "sendDtmf"
        case .transfer: "transfer"
        case .sendData: "sendData"
        case .sessionDebug: "sessionDebug"
        }
    }

    /// The single `data` element.
    var payload: JSONValue {
        switch self {
        case .connection(let r): return r.json
        case .pong, .ping: return .null
        case .call(let c):
            var o: [String: JSONValue] = [
                "callId": .string(c.callId), "incoming": false, "hasVideo": .bool(c.hasVideo),
                "hasAudio": .bool(c.hasAudio), "status": "PENDING", "mediaProvider": "WebRTC",
                "sdp": .string(c.sdp), "caller": .string(c.caller), "callee": .string(c.callee),
                "visibleName": .string(c.visibleName),
            ]
            if let custom = c.custom { o["custom"] = custom }
            if let p = c.inviteParameters { o["inviteParameters"] = .object(p.mapValues { .string($0) }) }
            return .object(o)
        case .answer(let callId, let callee, let sdp):
            var o: [String: JSONValue] = [
                "callId": .string(callId), "incoming": true, "hasVideo": false, "hasAudio": true,
                "status": "PENDING", "mediaProvider": "WebRTC", "sdp": .string(sdp),
            ]
            if let callee { o["callee"] = .string(callee) }
            return .object(o)
        case .hangup(let callId), .unhold(let callId):
            return ["callId": .string(callId)]
        case .hold(let callId, let forTransfer):
            return forTransfer ? ["callId": .string(callId), "holdForTransfer": true] : ["callId": .string(callId)]
        case .sendDtmf(let callId, let digits, let type):
            return ["callId": .string(callId), "type": .string(type.rawValue), "dtmf": .string(digits)]
        case .transfer(let callId, let target):
            return ["callId": .string(callId), "target": .string(target)]
        case .sendData(let operationId, let payload):
            return ["operationId": .string(operationId), "payload": payload]
        case .sessionDebug(let start):
            return ["command": .string(start ? "start" : "stop")]
        }
    }

    /// The wire frame: `{"message": name, "data": [payload]}`.
    public func encoded() -> String {
        JSONValue.object(["message": .string(name), "data": .array([payload])]).serialized()
    }

    /// A one-line description for logs with the password, token and SDP bodies removed.
    public var logDescription: String {
        guard case .object(var o) = payload else { return name }
        for key in ["sipPassword", "authToken"] where o[key] != nil { o[key] = "<redacted>" }
        if let sdp = o["sdp"]?.stringValue { o["sdp"] = .string("<\(sdp.utf8.count) bytes>") }
        if o["payload"] != nil { o["payload"] = "<app data>" }
        return "\(name) \(JSONValue.object(o).serialized())"
    }
}
