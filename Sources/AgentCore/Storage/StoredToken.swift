import FoundationEssentials

/// The WCS auth token saved between runs so the daemon can resume its server-side session.
///
/// `description` masks the token, so the value may be logged.
public struct StoredToken: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The server URL the token belongs to (a token is useless on another server).
    public var server: String
    /// The bearer auth token. Secret: never log it.
    public var token: String
    /// The WCS session id, when known.
    public var sessionId: String?
    /// When the token was saved (stored with millisecond precision).
    public var savedAt: Date
    /// The server's numeric address that held the session, when known: a wake connects there
    /// first (no DNS on the wake; the node that holds the session behind round-robin DNS).
    public var address: String?

    /// Creates a token record.
    public init(server: String, token: String, sessionId: String? = nil, savedAt: Date = Date(), address: String? = nil) {
        self.server = server
        self.token = token
        self.sessionId = sessionId
        self.savedAt = savedAt
        self.address = address
    }

    public var description: String {
        "StoredToken(server: \(server), token: [redacted], sessionId: \(sessionId ?? "nil"), savedAt: \(savedAt), "
            + "address: \(address ?? "nil"))"
    }
}
