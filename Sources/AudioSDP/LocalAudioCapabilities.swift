/// What this agent puts into its SDP: codecs in preference order, ICE credentials, DTLS
/// fingerprint and (optionally) candidates.
public struct LocalAudioCapabilities: Sendable, Equatable {
    /// Our codecs, most preferred first. Default: Opus, PCMU, PCMA.
    public var codecs: [AudioCodecKind]
    /// Adds `usedtx=1` to our Opus fmtp (we would like to receive DTX).
    public var opusDTX: Bool
    /// Offers or accepts `telephone-event` (RFC 4733, events 0-16).
    public var telephoneEvents: Bool
    /// Our ICE username fragment (4-256 ice-chars).
    public var iceUfrag: String
    /// Our ICE password (22-256 ice-chars).
    public var icePwd: String
    /// The SHA-256 fingerprint of our DTLS certificate.
    public var fingerprint: SDPFingerprint
    /// Our gathered candidates (used only when `includeCandidates`).
    public var candidates: [ICECandidateLine]
    /// Writes `candidates` (and `a=end-of-candidates`) into the SDP; the first component-1
    /// candidate becomes the `c=`/`m=` default. Otherwise `c=IN IP4 0.0.0.0` and port 9.
    public var includeCandidates: Bool
    /// The direction we want (normally sendrecv).
    public var direction: MediaDirection
    /// Our RTP SSRC, announced as `a=ssrc:<ssrc> cname:<cname>` when set.
    public var ssrc: UInt32?
    /// The RTCP CNAME for the `a=ssrc` line (default "wcs-agent").
    public var cname: String

    /// The Opus fmtp we send: `minptime=10;useinbandfec=1` and `;usedtx=1` with DTX.
    public var opusFormatParameters: String {
        "minptime=10;useinbandfec=1" + (opusDTX ? ";usedtx=1" : "")
    }

    /// Creates capabilities; only the credentials and fingerprint have no default.
    public init(iceUfrag: String, icePwd: String, fingerprint: SDPFingerprint,
                codecs: [AudioCodecKind] = [.opus, .pcmu, .pcma], opusDTX: Bool = false,
                telephoneEvents: Bool = true, candidates: [ICECandidateLine] = [],
                includeCandidates: Bool = false, direction: MediaDirection = .sendrecv,
                ssrc: UInt32? = nil, cname: String = "wcs-agent") {
        self.codecs = codecs
        self.opusDTX = opusDTX
        self.telephoneEvents = telephoneEvents
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.includeCandidates = includeCandidates
        self.direction = direction
        self.ssrc = ssrc
        self.cname = cname
    }
}
