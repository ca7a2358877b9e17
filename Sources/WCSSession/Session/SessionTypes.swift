import MainLoop

/// Everything a `WCSSession` needs to reach and log in to a WCS server.
public struct WCSSessionConfiguration: Sendable {
    /// `ws://host:port` or `wss://host:port`.
    public var url: String
    /// PEM CA bundle to verify the server with; nil = the system CAs.
    public var caFile: String?
    /// Skip TLS certificate verification (logged as a warning on every connect).
    public var allowInsecureTLS = false
    /// Seconds to open the socket, and again to receive `getUserData` after `connection`.
    public var connectTimeout: Double = 10
    public var appKey = "defaultApp"
    /// Ask the server to keep the session (and its SIP registration) when the socket closes.
    public var keepAlive = true
    /// SIP account for a full login. Without it only token resume is possible.
    public var credentials: SIPCredentials?
    /// `sipRegisterRequired`: register so that incoming calls reach us.
    public var registerRequired = true
    /// Server pings that may be missed before the connection counts as lost (0 disables).
    public var receiveProbes = 3
    /// Seconds between ping-loss probes. 3 x 5 s notices a dead server within 15 s; protocol doc §6's
    /// Web SDK numbers (10 x 5 s) take 50 s.
    public var probesInterval: Double = 5
    /// Kernel-level dead-path detection on the socket (TCP user timeout and keepalive): a path that
    /// lost its peer is noticed within about 15 s even while no ping is due or the pings are off.
    /// Nil keeps the kernel's defaults.
    public var tcpLiveness: TCPLiveness? = .within(seconds: 15)
    /// Seconds to wait for `registered` (or a registration `fail`) after a fresh login.
    public var registrationTimeout: Double = 15
    public var clientVersion = "2.0"
    public var clientOSVersion: String?
    public var clientBrowserVersion: String?
    public var custom: JSONValue?
    /// Resolves the URL's host name; nil = the system resolver. For tests and embedders with their own DNS.
    public var hostLookup: HostLookup?

    public init(url: String) { self.url = url }
}

/// Session states of protocol doc §4.1 (`PENDING` is `.connecting`).
public enum SessionState: String, Sendable {
    /// No socket. The server may still keep our session (keepAlive).
    case disconnected
    /// The socket is opening.
    case connecting
    /// The socket is open and `connection` was sent.
    case connected
    /// `getUserData` arrived: the session is up.
    case established
    /// SIP registration confirmed (or carried over by a token resume).
    case registered
}

/// What identifies the server session we hold.
public struct SessionInfo: Sendable, Equatable {
    /// The auth token that resumes the session. Redacted when printed.
    public var token: Secret
    public var sessionId: String?
    /// `sipLogin` as the server reports it (used as `caller` of outgoing calls).
    public var sipLogin: String?
}

/// Why the socket went away.
public enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// We closed it (sleep, shutdown, replaced by a new connection).
    case requested
    /// The server sent a close frame.
    case closedByServer(code: Int, reason: String)
    /// The TCP connection dropped or could not be opened.
    case connectionLost(String)
    /// No server ping for `receiveProbes` x `probesInterval` seconds.
    case pingTimeout(seconds: Double)
    /// The server refused the session (`fail` with `ConnectionStatusEvent`).
    case rejected(String)

    public var description: String {
        switch self {
        case .requested: "closed by us"
        case .closedByServer(let code, let reason): "closed by server (\(code)\(reason.isEmpty ? "" : ": \(reason)"))"
        case .connectionLost(let why): "connection lost: \(why)"
        case .pingTimeout(let s): "no ping from server for \(Int(s)) s"
        case .rejected(let info): "rejected by server: \(info)"
        }
    }

    /// `true` unless we closed the socket on purpose.
    public var isUnexpected: Bool { self != .requested }
}

/// An event of the session, delivered in order on `WCSSession.events`.
public enum SessionEvent: Sendable, Equatable {
    case stateChanged(SessionState)
    /// SIP registration failed (wrong password, unknown user, ...): no incoming calls.
    case registrationFailed(status: String?, info: String?)
    /// A call is ringing for us, with the server's SDP offer (`nil` when no usable
    /// `setRemoteSDP` came before it: missing, or an sdp that is not a string). `replayed` is true
    /// when the server re-announces a call we already knew (after a resume).
    case incomingCall(CallInfo, offer: String?, replayed: Bool)
    /// The server's SDP for a known call: the answer to one of our outgoing calls, or an offer
    /// that arrived after its incoming call was announced.
    case remoteSDP(callId: String, sdp: String)
    /// A call changed status; terminal statuses (FINISH, BUSY, FAILED) end it.
    case callStatus(CallInfo)
    /// Transfer progress (ACCEPTED, TRYING, COMPLETED, FAILED).
    case transfer(callId: String, status: String, info: String?)
    /// Data pushed by the server's backend (`OnDataEvent`).
    case dataEvent(JSONValue)
    /// DTMF keys the far end sent by SIP INFO, relayed by the server (`notifyDtmf`, or an
    /// `OnDataEvent` carrying `callId` and `dtmf`; both inferred, see `ServerMessage.dtmf`), for
    /// a call of ours. `digits` holds only 0-9, *, #, A-D.
    case dtmf(callId: String, digits: String, type: String?)
    /// The backend's answer to `sendData` (`DataStatusEvent`: ACCEPTED or FAILED).
    case dataStatus(operationId: String, status: String, info: String?)
    /// Server-side session debug logging started or stopped (`notifySessionDebugEvent`).
    case sessionDebug(status: String, file: String?)
    /// Something odd but survivable: a malformed frame, an unexpected `fail`.
    case warning(String)
    case disconnected(DisconnectReason)
}

/// The result of a full login with credentials.
public enum LoginResult: Sendable, Equatable {
    /// Session up and SIP registered.
    case registered(SessionInfo)
    /// Session up; registration was not requested.
    case established(SessionInfo)
    /// Session up but SIP registration failed: no incoming calls until the account is fixed.
    case registrationFailed(SessionInfo, status: String?, info: String?)

    /// The session identity in every case.
    public var session: SessionInfo {
        switch self {
        case .registered(let s), .established(let s), .registrationFailed(let s, _, _): s
        }
    }
}

/// The one typed outcome of a resume by token.
public enum ResumeOutcome: Sendable, Equatable {
    /// The same server session is back.
    case resumed(SessionInfo)
    /// The same session is back and these calls are ringing for us (also sent as events).
    case resumedWithPendingCall(SessionInfo, calls: [CallInfo])
    /// The token was refused or gone; a full login made a new session (store its new token).
    case reloggedIn(LoginResult, reason: String)
    /// Neither worked. The stored token stays valid unless `tokenRejected` says otherwise.
    case failed(SessionError)
}

/// Why a session operation failed.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The socket could not be opened (DNS, refused, TLS, timeout).
        case connect
        /// The server refused the session.
        case rejected
        /// The socket closed before the session was established.
        case closed
        /// The server closed a resume's socket before `getUserData` with a close code other than a
        /// normal close (1013 "try again later", 1001, 1011; libwebsockets 4.1 shows 1012-2999 as
        /// 1002): it cannot take us now. The token stays valid; try again after a backoff.
        case tryLater
        /// The server refused the WebSocket upgrade (an HTTP status such as 503) before any session: it
        /// is there but cannot take us now. `retryAfter` carries its `Retry-After`, when it sent one.
        case unavailable
        /// No `getUserData` in time.
        case timeout
        /// The token was refused and no credentials are configured for a new login.
        case tokenRejected
        /// The token was refused or gone, and the caller asked for no login in the same resume
        /// (`loginIfRefused: false`): log in when it suits (the agent: after the reconnect spread).
        case loginDeferred
        /// The operation needs an established session.
        case notConnected
        /// No such call.
        case unknownCall
        /// The call is not in a state that allows the operation.
        case invalidCallState
        /// An argument is invalid (e.g. DTMF digits).
        case invalidArgument
    }
    public let kind: Kind
    public let message: String
    /// Seconds the server asked us to wait before the next attempt (HTTP `Retry-After` on a refused
    /// upgrade), when it said.
    public var retryAfter: Double?

    public init(_ kind: Kind, _ message: String, retryAfter: Double? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The error of a socket that never opened: `.unavailable` (with the server's `Retry-After`) when
    /// the server answered the upgrade with an HTTP status, else `.connect`.
    static func connectFailed(_ error: WebSocketError, url: String) -> SessionError {
        if error.kind == .handshake, let status = error.httpStatus {
            return SessionError(.unavailable, "\(url) refused the WebSocket upgrade with HTTP \(status): \(error)",
                                retryAfter: error.retryAfterSeconds)
        }
        return SessionError(.connect, "cannot connect to \(url): \(error)")
    }

    public var description: String { message }
}

/// Our view of one call: what the server said plus its SDP.
public struct CallSnapshot: Sendable, Equatable {
    public var info: CallInfo
    public var direction: Direction
    /// The server's SDP: the offer of an incoming call or the answer to our outgoing one.
    public var remoteSDP: String?

    public enum Direction: String, Sendable { case incoming, outgoing }
}
