/// Which side of the DTLS handshake this endpoint plays (RFC 5763 §5: `a=setup:active` is the client).
public enum DTLSRole: Sendable, Equatable, CustomStringConvertible {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server

    /// The role an endpoint has when its own SDP says `a=setup:<value>`: `active` is the client,
    /// `passive` the server; `actpass` and unknown values are undecided (nil).
    public init?(localSetup value: String) {
        switch value.lowercased() {
        case "active": self = .client
        case "passive": self = .server
        default: return nil
        }
    }

    /// The role an answerer takes for the offerer's `a=setup:<value>`: `actpass` or `passive` in the
    /// offer make us the client (we answer `active`), `active` makes us the server; nil otherwise.
    public init?(answeringRemoteSetup value: String) {
        switch value.lowercased() {
        case "actpass", "passive": self = .client
        case "active": self = .server
        default: return nil
        }
    }

    /// The value of this endpoint's own `a=setup` attribute: `active` or `passive`.
    public var localSetup: String {
        self == .client ? "active" : "passive"
    }

    public var description: String { self == .client ? "client" : "server" }
}
