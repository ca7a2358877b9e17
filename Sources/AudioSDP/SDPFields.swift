/// The `o=` line: `<username> <sess-id> <sess-version> <nettype> <addrtype> <address>`.
public struct SDPOrigin: Sendable, Equatable {
    /// The user name, `-` when there is none.
    public var username: String
    /// The session id, kept as text (some implementations exceed 64 bits).
    public var sessionId: String
    /// The session version, kept as text.
    public var sessionVersion: String
    /// The network type, normally `IN`.
    public var networkType: String
    /// The address type, `IP4` or `IP6`.
    public var addressType: String
    /// The origin address (often a placeholder such as `127.0.0.1` or `0.0.0.0`).
    public var address: String

    /// Creates an origin line.
    public init(username: String = "-", sessionId: String, sessionVersion: String,
                networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// Parses the value of an `o=` line.
    init(line: SDPLine) throws(SDPError) {
        let fields = line.value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count == 6 else { throw line.error("o= needs 6 fields") }
        self.init(username: fields[0], sessionId: fields[1], sessionVersion: fields[2],
                  networkType: fields[3], addressType: fields[4], address: fields[5])
    }

    /// The value of the `o=` line.
    public var value: String {
        "\(username) \(sessionId) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}

/// A `c=` line: `IN IP4 203.0.113.1` (a multicast TTL or count suffix stays in `address`).
public struct SDPConnection: Sendable, Equatable {
    /// The network type, normally `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The connection address.
    public var address: String

    /// Creates a connection line.
    public init(networkType: String = "IN", addressType: String, address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// A connection for `address`, choosing IP6 when it contains a colon.
    public init(address: String) {
        self.init(addressType: address.contains(":") ? "IP6" : "IP4", address: address)
    }

    /// Parses a `c=` line.
    init(line: SDPLine) throws(SDPError) {
        let fields = line.value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count == 3 else { throw line.error("c= needs 3 fields") }
        self.init(networkType: fields[0], addressType: fields[1], address: fields[2])
    }

    /// The value of the `c=` line.
    public var value: String { "\(networkType) \(addressType) \(address)" }
}
