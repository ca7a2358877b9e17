/// What happens on a `WebSocketConnection`, in order. Exactly one terminal event
/// (`.closed` or `.failed`) ends the stream.
public enum WebSocketEvent: Sendable, Equatable {
    /// The upgrade succeeded; queued messages are being sent.
    case opened
    /// A complete text message (fragments reassembled).
    case text(String)
    /// A complete binary message; only its size is reported (the protocol never uses them).
    case binary(byteCount: Int)
    /// Terminal, after `.opened`: the peer's close frame (its code, 1005 if it sent none),
    /// our `close()` (our code), or a dropped connection or `abort()` (1006).
    case closed(code: Int, reason: String)
    /// Terminal, the connection never opened.
    case failed(WebSocketError)

    /// Whether this event ends the stream.
    public var isTerminal: Bool {
        switch self {
        case .closed, .failed: true
        case .opened, .text, .binary: false
        }
    }
}

/// Why a WebSocket connection could not be opened.
public struct WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad cause, for deciding what to do (retry, alert, fix configuration).
    public enum Kind: Sendable {
        /// The URL is malformed or not ws/wss.
        case badURL
        /// The host name did not resolve.
        case dns
        /// TCP could not connect (refused, unreachable) to any resolved address.
        case connect
        /// TLS failed: certificate verification (the message names the cause) or handshake.
        case tls
        /// The connection did not open within `connectTimeout`.
        case timeout
        /// TCP (and TLS) worked but the HTTP upgrade was refused or broken.
        case handshake
        /// Anything else, e.g. `close()`/`abort()` before the connection opened.
        case other
    }

    /// The broad cause.
    public let kind: Kind
    /// A human-readable explanation, naming the host and the cause.
    public let message: String
    /// For `.handshake`: the HTTP status that refused the upgrade, when one came (e.g. 503).
    public var httpStatus: Int?
    /// For `.handshake`: the server's `Retry-After` in seconds (delta-seconds form), when it sent one.
    public var retryAfterSeconds: Double?

    /// Creates an error.
    public init(kind: Kind, message: String, httpStatus: Int? = nil, retryAfterSeconds: Double? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// "kind: message", e.g. "tls: TLS certificate verify failed: ...".
    public var description: String { "\(kind): \(message)" }
}
