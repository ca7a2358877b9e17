/// The server's view of the session, from `getUserData` (protocol doc §3.2).
public struct UserData: Sendable, Equatable {
    /// The token that resumes this server session. Required.
    public var authToken: Secret
    public var sipLogin: String?
    public var sipDomain: String?
    public var sipRegisterRequired: Bool?
    public var keepAlive: Bool?
    public var sessionId: String?
    public var status: String?
    /// The whole object as received (the token and any echoed password stay inside; never log it).
    public var raw: JSONValue

    init?(_ o: JSONValue) {
        guard let token = o["authToken"]?.stringValue, !token.isEmpty else { return nil }
        authToken = Secret(token)
        sipLogin = o["sipLogin"]?.stringValue
        sipDomain = o["sipDomain"]?.stringValue
        sipRegisterRequired = o["sipRegisterRequired"]?.boolValue
        keepAlive = o["keepAlive"]?.boolValue
        sessionId = o["sessionId"]?.stringValue
        status = o["status"]?.stringValue
        raw = o
    }
}

/// A call object from `notifyIncomingCall` or a call status message (protocol doc §3.5, §3.6).
public struct CallInfo: Sendable, Equatable {
    public var callId: String
    public var status: CallStatus
    public var incoming: Bool?
    public var caller: String?
    public var callee: String?
    public var visibleName: String?
    /// Failure or end reason, e.g. "Normal call clearing".
    public var info: String?
    public var hasAudio: Bool?
    public var hasVideo: Bool?
    /// A call UUID if the server sends one (it matches the push's `uuid`).
    public var uuid: String?
    public var raw: JSONValue

    init?(_ o: JSONValue, defaultStatus: CallStatus) {
        guard let id = (o["callId"] ?? o["id"])?.stringValue, !id.isEmpty else { return nil }
        callId = id
        status = o["status"]?.stringValue.map(CallStatus.init(wire:)) ?? defaultStatus
        incoming = o["incoming"]?.boolValue
        caller = o["caller"]?.stringValue
        callee = o["callee"]?.stringValue
        visibleName = o["visibleName"]?.stringValue
        info = o["info"]?.stringValue
        hasAudio = o["hasAudio"]?.boolValue
        hasVideo = o["hasVideo"]?.boolValue
        uuid = o["uuid"]?.stringValue
        raw = o
    }
}

/// The payload of `fail` (protocol doc §3.8).
public struct FailInfo: Sendable, Equatable {
    /// `ConnectionStatusEvent`, `RegistrationStatusEvent`, `CallStatusEvent`, ... or nil.
    public var apiMethod: String?
    public var status: String?
    public var info: String?
    /// `id` or `callId` (legacy servers fail calls by `id`).
    public var id: String?
    public var raw: JSONValue

    init(_ o: JSONValue) {
        apiMethod = o["apiMethod"]?.stringValue
        status = o["status"]?.stringValue
        info = o["info"]?.stringValue
        id = (o["id"] ?? o["callId"])?.stringValue
        raw = o
    }
}

/// A message from the server, decoded tolerantly (protocol doc §3).
public enum ServerMessage: Sendable, Equatable {
    case ping
    case pong
    case getUserData(UserData)
    /// `registered`; `status` is nil or `"REGISTERED"` on success.
    case registered(status: String?, info: String?)
    case setRemoteSDP(callId: String, sdp: String)
    case notifyIncomingCall(CallInfo)
    /// Any of `notifyTryingResponse, ring, sessionProgress, talk, hold, busy, finish`: apply `status`.
    case callStatus(message: String, CallInfo)
    /// `notifyTransferEvent` with status ACCEPTED, TRYING, COMPLETED or FAILED.
    case transferStatus(callId: String, status: String, info: String?)
    case fail(FailInfo)
    /// `OnDataEvent` (backend data) payload.
    case dataEvent(JSONValue)
    /// DTMF from the far end relayed by the server (SIP INFO `application/dtmf-relay`, or RFC 2833
    /// the server decoded). Inferred (protocol doc §10, question 11: public sources do not say
    /// whether or how WCS reports incoming DTMF): `notifyDtmf {callId, dtmf, type}`, modelled on
    /// the client's `sendDtmf`, or an `OnDataEvent` whose payload carries `callId` and `dtmf` (a
    /// backend relaying it). The fallback is the media path: RFC 4733 and the in-audio detector.
    case dtmf(callId: String, digits: String, type: String?)
    /// `DataStatusEvent`: the backend's answer to `sendData` (ACCEPTED or FAILED).
    case dataStatus(operationId: String, status: String, info: String?)
    /// `notifySessionDebugEvent`: STARTED or STOPPED, with the server-side log file when stopped.
    case sessionDebugStatus(status: String, file: String?)
    /// `notifyAudioCodec`, `notifyBugReport`: Flash/legacy only, decoded but not used.
    case ignored(name: String)
    /// A message name the client does not know; logged and ignored.
    case unknown(name: String)
}

/// Why a frame could not be decoded. The session reports it as a warning and carries on.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

/// Decodes server frames (`{"message": name, "data": [...]}`) into `ServerMessage`.
public enum ServerMessageDecoder {
    /// Message names whose `data[0].status` updates a call (protocol doc §3.6, legacy names included).
    static let callStatusMessages: Set<String> = [
        "notifyTryingResponse", "ring", "sessionProgress", "talk", "hold", "busy", "finish",
    ]

    /// Decodes one text frame. Throws `ProtocolError` for malformed JSON or a required field missing.
    public static func decode(_ text: String) throws -> ServerMessage {
        let frame: JSONValue
        do { frame = try JSONValue.parse(text) } catch {
            throw ProtocolError(description: "malformed frame (\(text.utf8.count) bytes): not JSON")
        }
        guard case .object = frame else { throw ProtocolError(description: "frame is not a JSON object") }
        guard case .string(let name)? = frame["message"], !name.isEmpty else {
            throw ProtocolError(description: "frame has no \"message\" name")
        }
        // `data` may be missing, null, an array, or (tolerated) a bare object.
        let args: [JSONValue]
        switch frame["data"] {
        case .array(let a)?: args = a
        case .object?: args = [frame["data"]!]
        default: args = []
        }
        let first = args.first ?? .null

        func requireObject() throws -> JSONValue {
            guard case .object = first else { throw ProtocolError(description: "\(name): data[0] is not an object") }
            return first
        }

        switch name {
        case "ping": return .ping
        case "pong": return .pong
        case "getUserData":
            guard let user = UserData(try requireObject()) else {
                throw ProtocolError(description: "getUserData without authToken")
            }
            return .getUserData(user)
        case "registered":
            return .registered(status: first["status"]?.stringValue, info: first["info"]?.stringValue)
        case "setRemoteSDP":
            guard args.count >= 2, let id = args[0].stringValue, let sdp = args[1].stringValue else {
                throw ProtocolError(description: "setRemoteSDP needs [callId, sdp]")
            }
            return .setRemoteSDP(callId: id, sdp: sdp)
        case "notifyIncomingCall":
            guard let call = CallInfo(try requireObject(), defaultStatus: .new) else {
                throw ProtocolError(description: "notifyIncomingCall without callId")
            }
            return .notifyIncomingCall(call)
        case _ where callStatusMessages.contains(name):
            let fallback: CallStatus = switch name {
            case "notifyTryingResponse": .trying
            case "ring": .ring
            case "sessionProgress": .sessionProgress
            case "talk": .established
            case "hold": .hold
            case "busy": .busy
            default: .finish
            }
            guard let call = CallInfo(try requireObject(), defaultStatus: fallback) else {
                throw ProtocolError(description: "\(name) without callId")
            }
            return .callStatus(message: name, call)
        case "notifyTransferEvent":
            let o = try requireObject()
            guard let id = (o["callId"] ?? o["id"])?.stringValue, let status = o["status"]?.stringValue else {
                throw ProtocolError(description: "notifyTransferEvent without callId or status")
            }
            return .transferStatus(callId: id, status: status, info: o["info"]?.stringValue)
        case "fail":
            return .fail(FailInfo(first))
        case "notifyDtmf":
            let o = try requireObject()
            guard let relayed = RelayedDTMF(o) else { throw ProtocolError(description: "notifyDtmf without callId or valid dtmf keys") }
            return .dtmf(callId: relayed.callId, digits: relayed.digits, type: relayed.type)
        case "OnDataEvent":
            let payload = first["payload"] ?? first
            if let relayed = RelayedDTMF(payload) { return .dtmf(callId: relayed.callId, digits: relayed.digits, type: relayed.type) }
            return .dataEvent(payload)
        case "DataStatusEvent":
            let o = try requireObject()
            guard let id = o["operationId"]?.stringValue else { throw ProtocolError(description: "DataStatusEvent without operationId") }
            return .dataStatus(operationId: id, status: o["status"]?.stringValue ?? "", info: o["info"]?.stringValue)
        case "notifySessionDebugEvent":
            return .sessionDebugStatus(status: first["status"]?.stringValue ?? "", file: first["file"]?.stringValue)
        case "notifyAudioCodec", "notifyBugReport":
            return .ignored(name: name)
        default:
            return .unknown(name: name)
        }
    }
}

/// DTMF keys in a server message: `{callId, dtmf, type?}` with `dtmf` a string of 1 to 32 keys
/// of 0-9, *, #, A-D (lowercase a-d accepted); nil for anything else.
struct RelayedDTMF {
    let callId: String
    let digits: String
    let type: String?

    init?(_ o: JSONValue) {
        guard case .object = o, let id = (o["callId"] ?? o["id"])?.stringValue, !id.isEmpty,
              let keys = o["dtmf"]?.stringValue?.uppercased(), (1...32).contains(keys.count),
              keys.allSatisfy({ "0123456789*#ABCD".contains($0) }) else { return nil }
        callId = id
        digits = keys
        type = o["type"]?.stringValue
    }
}
