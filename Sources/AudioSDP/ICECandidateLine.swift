/// An ICE candidate as written in SDP (RFC 8839 section 5.1):
/// `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
/// [raddr <addr>] [rport <port>] *(<name> <value>)`.
public struct ICECandidateLine: Sendable, Equatable {
    /// The candidate type after `typ`.
    public enum CandidateType: Sendable, Equatable {
        /// `host`
        case host
        /// `srflx`
        case serverReflexive
        /// `prflx`
        case peerReflexive
        /// `relay`
        case relayed
        /// Any other token, kept as written.
        case other(String)

        /// Parses a `typ` token (case-insensitive for the four known ones).
        public init(token: String) {
            switch token.lowercased() {
            case "host": self = .host
            case "srflx": self = .serverReflexive
            case "prflx": self = .peerReflexive
            case "relay": self = .relayed
            default: self = .other(token)
            }
        }

        /// The SDP token.
        public var token: String {
            switch self {
            case .host: "host"
            case .serverReflexive: "srflx"
            case .peerReflexive: "prflx"
            case .relayed: "relay"
            case .other(let token): token
            }
        }
    }

    /// An extension attribute pair after the fixed fields, such as `tcptype active` or `generation 0`.
    public struct Extension: Sendable, Equatable {
        /// The extension name.
        public var name: String
        /// The extension value.
        public var value: String

        /// Creates an extension pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The foundation (1-32 ice-chars).
    public var foundation: String
    /// The component id: 1 for RTP, 2 for RTCP.
    public var component: Int
    /// The transport token as written, normally `udp` or `UDP` (compare case-insensitively).
    public var transport: String
    /// The candidate priority.
    public var priority: UInt32
    /// The address: an IPv4/IPv6 literal or a host name (for example an mDNS `.local` name).
    public var address: String
    /// The port.
    public var port: Int
    /// The candidate type.
    public var type: CandidateType
    /// The related address (`raddr`), if present.
    public var relatedAddress: String?
    /// The related port (`rport`), if present.
    public var relatedPort: Int?
    /// The remaining name/value pairs in order.
    public var extensions: [Extension]

    /// Creates a candidate.
    public init(foundation: String, component: Int, transport: String = "udp", priority: UInt32,
                address: String, port: Int, type: CandidateType, relatedAddress: String? = nil,
                relatedPort: Int? = nil, extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Parses the value of an `a=candidate` attribute; the `candidate:` prefix is optional, so
    /// the strings of trickle signaling work too. Errors carry `lineNumber` when given.
    public init(parsing text: String, lineNumber: Int? = nil) throws(SDPError) {
        func fail(_ reason: String) -> SDPError {
            SDPError(line: lineNumber, text: "a=candidate:" + text, reason: "bad candidate: " + reason)
        }
        var body = Substring(text)
        if body.lowercased().hasPrefix("candidate:") { body = body.dropFirst("candidate:".count) }
        let fields = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 8 else { throw fail("fewer than 8 fields") }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw fail("component is not 1-256") }
        guard let priority = UInt32(fields[3]) else { throw fail("priority is not a 32-bit number") }
        guard let port = Int(fields[5]), (0...65535).contains(port) else { throw fail("port is not 0-65535") }
        guard fields[6] == "typ" else { throw fail("expected 'typ' as the 7th field") }
        self.init(foundation: fields[0], component: component, transport: fields[2], priority: priority,
                  address: fields[4], port: port, type: CandidateType(token: fields[7]))
        var rest = fields[8...]
        guard rest.count % 2 == 0 else { throw fail("extension '\(rest.last ?? "")' has no value") }
        while let name = rest.popFirst(), let value = rest.popFirst() {
            switch name {
            case "raddr": relatedAddress = value
            case "rport":
                guard let related = Int(value), (0...65535).contains(related) else { throw fail("rport is not 0-65535") }
                relatedPort = related
            default: extensions.append(Extension(name: name, value: value))
            }
        }
    }

    /// The attribute value, `candidate:...` (prefix `a=` for an SDP line).
    public var attributeValue: String {
        var fields = [foundation, String(component), transport, String(priority), address, String(port), "typ", type.token]
        if let relatedAddress { fields += ["raddr", relatedAddress] }
        if let relatedPort { fields += ["rport", String(relatedPort)] }
        for item in extensions { fields += [item.name, item.value] }
        return "candidate:" + fields.joined(separator: " ")
    }
}
