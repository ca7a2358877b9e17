import AudioSDP
/// What `ICEAgent.gather()` produces for our SDP: credentials and component-1 candidates.
public struct ICELocalParameters: Sendable, Equatable {
    /// `a=ice-ufrag`.
    public var ufrag: String
    /// `a=ice-pwd`.
    public var pwd: String
    /// Our candidates for component 1 (rtcp-mux is required, so there is no component 2).
    /// WCS-style signaling may leave them out of the SDP; the peer then learns our address
    /// from our checks (peer-reflexive).
    public var candidates: [ICECandidateLine]

    /// Creates local parameters.
    public init(ufrag: String, pwd: String, candidates: [ICECandidateLine]) {
        self.ufrag = ufrag
        self.pwd = pwd
        self.candidates = candidates
    }
}

/// One side of the selected candidate pair, for call records.
public struct ICEPairEndpoint: Sendable, Equatable {
    /// The IP address.
    public var address: String
    /// The port.
    public var port: Int
    /// host, srflx, prflx or relay.
    public var type: ICECandidateLine.CandidateType
    /// `udp` or `tcp`.
    public var transport: String

    /// Creates an endpoint description.
    public init(address: String, port: Int, type: ICECandidateLine.CandidateType, transport: String) {
        self.address = address
        self.port = port
        self.type = type
        self.transport = transport
    }
}

/// The candidate pair libnice selected for component 1.
public struct ICESelectedPair: Sendable, Equatable {
    /// Our side.
    public var local: ICEPairEndpoint
    /// The peer's side.
    public var remote: ICEPairEndpoint

    /// Creates a pair description.
    public init(local: ICEPairEndpoint, remote: ICEPairEndpoint) {
        self.local = local
        self.remote = remote
    }
}
