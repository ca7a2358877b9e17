/// How to reach a WebSocket server and how to trust it.
public struct WebSocketOptions: Sendable {
    /// `ws://host[:port][/path]` or `wss://host[:port][/path]`; IPv6 literals go in brackets.
    public var url: String
    /// A PEM CA bundle to verify the server against, instead of the system CAs.
    public var caFile: String?
    /// Skips certificate verification (self-signed, untrusted, expired, wrong name).
    /// Logs a warning on every connect. For tests and lab servers only.
    public var allowInsecureTLS: Bool
    /// Seconds from `connect()` until the WebSocket must be open (DNS + TCP + TLS + upgrade),
    /// else the attempt fails with `.timeout`. Clamped to 0.01...240.
    public var connectTimeout: Double
    /// The largest incoming message accepted; a bigger one closes the connection with 1009.
    public var maxMessageBytes: Int
    /// Kernel-level dead-path detection set on the socket when it opens; nil keeps the kernel's
    /// defaults (no keepalive, retransmissions for ~15 minutes).
    public var tcpLiveness: TCPLiveness?
    /// For a host name: a numeric address to connect to at once, while the name is resolved in
    /// parallel (the address that held the session last time: no DNS on a wake, and the resume stays
    /// on the node that holds the session behind round-robin DNS). When it fails before the
    /// WebSocket opens, or has not opened within `preferredAddressGrace`, the resolved addresses
    /// follow (without it). Ignored for literal hosts.
    public var preferredAddress: String?
    /// Seconds the preferred address may take to open before the resolved addresses are tried
    /// (a node that is gone costs one fast failure, or this long when it silently drops packets).
    public var preferredAddressGrace: Double = 0.5
    /// Resolves a host name to numeric addresses; nil = the system resolver (`getaddrinfo`).
    /// Called off the loop thread. For tests and embedders with their own DNS.
    public var hostLookup: HostLookup?

    /// Creates options; see the properties for the meaning of each value.
    public init(url: String, caFile: String? = nil, allowInsecureTLS: Bool = false,
                connectTimeout: Double = 10, maxMessageBytes: Int = 16 << 20, tcpLiveness: TCPLiveness? = nil) {
        self.url = url
        self.caFile = caFile
        self.allowInsecureTLS = allowInsecureTLS
        self.connectTimeout = connectTimeout
        self.maxMessageBytes = maxMessageBytes
        self.tcpLiveness = tcpLiveness
    }

    /// The connect timeout actually used.
    var effectiveConnectTimeout: Double {
        guard connectTimeout.isFinite else { return 240 }
        return min(max(connectTimeout, 0.01), 240)
    }
}
