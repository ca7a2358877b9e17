/// A STUN server: a host name or IP literal and a UDP port.
public struct ICEServerAddress: Sendable, Equatable {
    /// Host name or IPv4/IPv6 literal; names are resolved once, by `ICEAgent.gather()`.
    public var host: String
    /// The server's port (3478 is the usual STUN/TURN port).
    public var port: UInt16

    /// Creates a server address.
    public init(host: String, port: UInt16 = 3478) {
        self.host = host
        self.port = port
    }
}

/// A TURN server used for relayed candidates. The password is a secret: it never appears in
/// `description`, `debugDescription` or a `dump`, and is never logged.
public struct TURNServer: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The transport between us and the TURN server.
    public enum Transport: String, Sendable, Equatable {
        /// TURN over UDP.
        case udp
        /// TURN over TCP.
        case tcp
        /// TURN over TLS (over TCP).
        case tls
    }

    /// Host name or IPv4/IPv6 literal; names are resolved once, by `ICEAgent.gather()`.
    public var host: String
    /// The server's port.
    public var port: UInt16
    /// The TURN long-term credential user name.
    public var username: String
    /// The TURN long-term credential password (secret).
    public var password: String
    /// How to reach the server.
    public var transport: Transport

    /// Creates a TURN server entry.
    public init(host: String, port: UInt16 = 3478, username: String, password: String, transport: Transport = .udp) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.transport = transport
    }

    /// `turn:host:port?transport=udp (user name)`, without the password.
    public var description: String { "turn:\(host):\(port)?transport=\(transport.rawValue) (user \(username))" }

    /// Same as `description`: the password is never shown.
    public var debugDescription: String { description }

    /// A mirror without the password, so `dump` cannot reveal it either.
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "username": username, "transport": transport])
    }
}

/// How an `ICEAgent` gathers candidates and runs its checks.
public struct ICEConfiguration: Sendable {
    /// Our ICE role, set explicitly: the offerer is controlling, the answerer controlled. When the
    /// remote side is ICE-lite, `setRemote(iceLite: true)` makes us controlling regardless.
    public var controlling: Bool
    /// IP literals or interface names (such as `eth0`) to gather host candidates on; tests use
    /// `["127.0.0.1"]`. Empty means libnice's own interface enumeration, which skips loopback.
    public var localAddresses: [String]
    /// A STUN server for server-reflexive candidates, or nil for none.
    public var stunServer: ICEServerAddress?
    /// TURN servers for relayed candidates (their passwords are never logged).
    public var turnServers: [TURNServer]
    /// Relay-only: gather and use only relayed (TURN) candidates, so all media goes through the
    /// relay (libnice's `force-relay`). Off by default.
    public var relayOnly: Bool = false
    /// Whether to gather and check ICE-TCP candidates as well (RFC 6544). Off by default.
    public var iceTCP: Bool
    /// Whether IPv6 link-local host candidates (fe80::/10) are gathered and advertised when
    /// `localAddresses` is empty. Off by default: they carry no zone in SDP, so a peer cannot use
    /// them (libwebrtc drops them too). Configured `localAddresses` are always used as given.
    public var includeLinkLocal: Bool = false
    /// Seconds from `setRemote` until the agent must be ready; otherwise it fails with
    /// `ICEState.failureReason`.
    public var connectTimeout: Double
    /// Seconds `gather()` waits for libnice to finish gathering (STUN/TURN replies) before it
    /// returns the candidates found so far. Host candidates are always available at once.
    public var gatherTimeout: Double
    /// RFC 7675 consent freshness: binding requests as keepalives on the selected pair; the
    /// agent fails when the peer stops answering them (libnice `consent-freshness`, which
    /// implies `keepalive-conncheck`).
    public var keepaliveConsent: Bool
    /// Sends all media through libnice (the path before direct sends on the selected pair's
    /// socket existed): only for the benchmarks' and tests' A/B runs of the old path; false in the product.
    public var sendsThroughLibniceOnly = false

    /// Creates a configuration; only the role has no default.
    public init(controlling: Bool, localAddresses: [String] = [], stunServer: ICEServerAddress? = nil,
                turnServers: [TURNServer] = [], iceTCP: Bool = false, connectTimeout: Double = 10,
                gatherTimeout: Double = 5, keepaliveConsent: Bool = true) {
        self.controlling = controlling
        self.localAddresses = localAddresses
        self.stunServer = stunServer
        self.turnServers = turnServers
        self.iceTCP = iceTCP
        self.connectTimeout = connectTimeout
        self.gatherTimeout = gatherTimeout
        self.keepaliveConsent = keepaliveConsent
    }

    /// Throws `ICEError.invalidConfiguration` for timeouts that are not positive and finite.
    func validate() throws(ICEError) {
        guard connectTimeout.isFinite, connectTimeout > 0 else {
            throw .invalidConfiguration("connectTimeout must be a positive number of seconds")
        }
        guard gatherTimeout.isFinite, gatherTimeout > 0 else {
            throw .invalidConfiguration("gatherTimeout must be a positive number of seconds")
        }
    }
}
