/// A session as `GET /sessions` shows it.
public struct EmulatorSession: Decodable, Sendable, Equatable {
    /// Server session id (`sessionId` in getUserData).
    public let id: String
    /// The session's auth token.
    public let token: String
    /// The sipLogin, if the session has one.
    public let login: String?
    /// True while a socket is attached.
    public let connected: Bool
    /// True if SIP registration succeeded.
    public let registered: Bool
    /// The keepAlive flag the client asked for.
    public let keepAlive: Bool
    /// Ids of every call of the session (ended ones included).
    public let calls: [String]
    /// Seconds left before a detached session expires (nil while attached).
    public let expiresIn: Double?
}

/// A call as `GET /calls` shows it.
public struct EmulatorCall: Decodable, Sendable, Equatable {
    /// The callId used on the wire.
    public let callId: String
    /// The call's UUID (the push `uuid`).
    public let uuid: String
    /// Owning session id (nil if the call never reached one).
    public let session: String?
    /// The emulator-side login the call belongs to.
    public let login: String?
    /// "incoming" or "outgoing".
    public let direction: String
    /// Caller number.
    public let caller: String
    /// Callee number.
    public let callee: String
    /// trying, ringing, established, held, ended or failed.
    public let state: String
    /// Why the call ended (declined, canceled, local_hangup, remote_hangup, missed, ...).
    public let endReason: String?
    /// Status of the `finish` sent at the end (FINISH, BUSY, FAILED).
    public let finishStatus: String?
    /// Info of the `finish` sent at the end.
    public let finishInfo: String?
    /// Every DTMF digit the client sent, concatenated.
    public let dtmf: String
    /// True if the last hold asked holdForTransfer.
    public let holdForTransfer: Bool
    /// The transfer target, if the client asked for a transfer.
    public let transferTarget: String?
    /// The last transfer status sent.
    public let transferStatus: String?
    /// True if a push was sent for this call.
    public let pushed: Bool
    /// The SDP offer (server's for incoming calls, client's for outgoing).
    public let offerSdp: String?
    /// The SDP answer (client's for incoming calls, server's for outgoing).
    public let answerSdp: String?
    /// Media statistics from the emulator's media engine (nil fields when not applicable).
    public let media: EmulatorMediaStats?
    /// How the offer was spoiled (`POST /ring {"offer"}`): none, null, object, non_utf8, deep.
    public let offerFault: String?
    /// True if the emulator never sends `finish` for this call (`POST /ring {"no_finish"}`).
    public let noFinish: Bool?
    /// Client `hangup` frames received for this call.
    public let hangups: Int?
    /// Client `answer` frames received for this call (taken or not).
    public let answers: Int?
    /// Another device answered it (`--answered-elsewhere`).
    public let answeredElsewhere: Bool?
    /// Late `notifyIncomingCall` duplicates sent for it (`--duplicate-notify`).
    public let duplicateNotifies: Int?
}

/// Per-call media statistics of the emulator's WebRTC leg (`--media aiortc`).
public struct EmulatorMediaStats: Decodable, Sendable, Equatable {
    /// "fixed" or "aiortc".
    public let engine: String
    /// ICE connection state of the emulator's peer connection.
    public let iceState: String?
    /// DTLS transport state.
    public let dtlsState: String?
    /// RTP packets sent by the emulator.
    public let packetsSent: Int?
    /// RTP packets received by the emulator.
    public let packetsReceived: Int?
    /// RTP payload bytes sent.
    public let bytesSent: Int?
    /// RTP payload bytes received.
    public let bytesReceived: Int?
    /// Negotiated codec, e.g. "opus/48000/2".
    public let codec: String?
    /// WAV file where received audio is recorded.
    public let recording: String?
}

/// A push as `GET /pushes` shows it; `id`, `uuid` and `handle` are exactly what was delivered.
public struct EmulatorPush: Decodable, Sendable, Equatable {
    /// Push `id` (the callId).
    public let id: String
    /// Push `uuid` (the call's UUID).
    public let uuid: String
    /// Push `handle` (the caller).
    public let handle: String
    /// The login the push was for.
    public let login: String?
    /// The session the push was for.
    public let session: String
    /// When the emulator sent the push: seconds since the Unix epoch (Python's `time.time()`).
    public let time: Double?
}

/// The answer of `POST /ring`.
public struct EmulatorRing: Decodable, Sendable, Equatable {
    /// The server-generated callId.
    public let callId: String
    /// The call's UUID.
    public let uuid: String
    /// "ringing", or "failed" when no registered session exists for the login.
    public let state: String
    /// True if the session was detached and a push was sent instead.
    public let pushed: Bool
    /// Why the call failed at once (e.g. "not_registered").
    public let reason: String?
}
