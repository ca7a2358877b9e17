/// The outcome of an offer/answer exchange: everything the media layers need.
public struct NegotiatedAudio: Sendable, Equatable {
    /// The codec and payload type to send and expect.
    public var codec: AudioCodec
    /// The payload type for RFC 4733 telephone-event, if both sides support it.
    public var telephoneEventPT: UInt8?
    /// The clock rate of that telephone-event format (8000, or 48000 with some Opus peers).
    public var telephoneEventClockRate: Int?
    /// The remote ICE username fragment.
    public var remoteIceUfrag: String
    /// The remote ICE password.
    public var remoteIcePwd: String
    /// The remote candidates from the SDP (may be empty: then the remote must find us by checks).
    public var remoteCandidates: [ICECandidateLine]
    /// Whether the remote is an ICE-lite agent (then we must be controlling).
    public var remoteIceLite: Bool
    /// The remote DTLS certificate fingerprint (always SHA-256).
    public var remoteFingerprint: SDPFingerprint
    /// Our DTLS role.
    public var dtlsRole: DTLSRole
    /// Whether RTP and RTCP share one port.
    public var rtcpMux: Bool
    /// The direction the remote side signalled.
    public var remoteDirection: MediaDirection
    /// Our resulting direction (what we may send and should expect to receive).
    public var localDirection: MediaDirection
    /// The `a=mid` of the audio section, if signalled.
    public var mid: String?
    /// The remote `a=ptime`, in ms.
    public var remotePtime: Int?
    /// The remote `a=maxptime`, in ms.
    public var remoteMaxPtime: Int?
    /// The first remote `a=ssrc`, if announced.
    public var remoteSSRC: UInt32?

    /// Creates a result from its parts (for tests and callers that negotiate elsewhere).
    public init(codec: AudioCodec, telephoneEventPT: UInt8? = nil, telephoneEventClockRate: Int? = nil,
                remoteIceUfrag: String, remoteIcePwd: String, remoteCandidates: [ICECandidateLine] = [],
                remoteIceLite: Bool = false, remoteFingerprint: SDPFingerprint, dtlsRole: DTLSRole,
                rtcpMux: Bool = true, remoteDirection: MediaDirection = .sendrecv,
                localDirection: MediaDirection = .sendrecv, mid: String? = nil, remotePtime: Int? = nil,
                remoteMaxPtime: Int? = nil, remoteSSRC: UInt32? = nil) {
        self.codec = codec
        self.telephoneEventPT = telephoneEventPT
        self.telephoneEventClockRate = telephoneEventClockRate
        self.remoteIceUfrag = remoteIceUfrag
        self.remoteIcePwd = remoteIcePwd
        self.remoteCandidates = remoteCandidates
        self.remoteIceLite = remoteIceLite
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.rtcpMux = rtcpMux
        self.remoteDirection = remoteDirection
        self.localDirection = localDirection
        self.mid = mid
        self.remotePtime = remotePtime
        self.remoteMaxPtime = remoteMaxPtime
        self.remoteSSRC = remoteSSRC
    }

    /// Assembles the result from the remote audio section and the local decisions.
    init(codec: AudioCodec, telephoneEvent: RTPPayloadFormat?, remote: AudioMediaDescription,
         credentials: RemoteTransportCredentials, dtlsRole: DTLSRole, rtcpMux: Bool, localDirection: MediaDirection) {
        self.init(codec: codec, telephoneEventPT: telephoneEvent?.payloadType, telephoneEventClockRate: telephoneEvent?.clockRate,
                  remoteIceUfrag: credentials.ufrag, remoteIcePwd: credentials.pwd, remoteCandidates: remote.candidates,
                  remoteIceLite: remote.iceLite, remoteFingerprint: credentials.fingerprint, dtlsRole: dtlsRole,
                  rtcpMux: rtcpMux, remoteDirection: remote.direction, localDirection: localDirection, mid: remote.mid,
                  remotePtime: remote.ptime, remoteMaxPtime: remote.maxptime, remoteSSRC: remote.ssrcs.first?.ssrc)
    }
}

/// The ICE and DTLS parameters every remote description must carry.
struct RemoteTransportCredentials {
    let ufrag: String
    let pwd: String
    let fingerprint: SDPFingerprint

    /// Checks a remote audio section: no holdconn, DTLS with a SHA-256 fingerprint, ICE credentials.
    init(checking audio: AudioMediaDescription) throws(SDPNegotiationError) {
        if audio.setup == .holdconn { throw .holdconnSetup }
        if audio.fingerprints.isEmpty {
            throw audio.transportProtocol.uppercased().contains("TLS")
                ? .missingFingerprint : .noDTLS(transportProtocol: audio.transportProtocol)
        }
        guard let fingerprint = audio.sha256Fingerprint else {
            throw .noSHA256Fingerprint(offered: audio.fingerprints.map(\.algorithm))
        }
        guard let ufrag = audio.iceUfrag, !ufrag.isEmpty, let pwd = audio.icePwd, !pwd.isEmpty else {
            throw .missingICECredentials
        }
        self.ufrag = ufrag
        self.pwd = pwd
        self.fingerprint = fingerprint
    }
}
