import AudioJitter
import AudioSDP
/// How a `CallMedia` negotiates and runs one call's audio.
public struct CallMediaConfiguration: Sendable {
    /// The ICE settings. A template: `controlling` is set by `CallMedia` (the offerer controls).
    public var ice: ICEConfiguration
    /// Whether our SDP carries our gathered candidates. Without them the peer learns our address
    /// from our connectivity checks, as WCS does with browser clients (protocol doc section 7.3).
    public var includeCandidates: Bool = true
    /// Our codecs, most preferred first.
    public var codecs: [AudioCodecKind] = [.opus, .pcmu, .pcma]
    /// The Opus target bitrate in bit/s (lowered to the peer's `maxaveragebitrate` when it asks).
    public var opusBitrate = 32_000
    /// Opus DTX: silent frames are not sent (the RTP timestamp still advances), and our SDP asks
    /// the peer for DTX too (`usedtx=1`).
    public var opusDTX = false
    /// Opus in-band FEC in what we send (the receive side always uses FEC when it is present).
    public var opusFEC = true
    /// Seconds from ICE connected until DTLS must be connected; otherwise the call fails with
    /// "Failed by DTLS error".
    public var dtlsTimeout: Double = 10
    /// Seconds without received RTP, while media runs, before `.mediaTimeout` is reported (the
    /// zombie-call detector). Reported once per silent period; only when we expect to receive.
    public var mediaTimeout: Double = 30
    /// The jitter buffer tuning. Its `clockRate` and `frameSamples` are replaced by the negotiated
    /// codec's (48000/960 for Opus, 8000/160 for G.711); the delay settings are used as given.
    public var jitter: JitterBufferConfiguration = CallMediaConfiguration.defaultJitter

    /// The default jitter buffer tuning: the layer's defaults with a 40 ms minimum delay, which
    /// keeps the next packet in hand (a single loss is rebuilt from Opus in-band FEC) and absorbs
    /// a few milliseconds of scheduling delay on a busy machine; the call's first packet plays at
    /// once and the delay grows to that by one concealed slot (`startsAtOnce`), so the 40 ms does
    /// not delay the first audio.
    public static let defaultJitter = JitterBufferConfiguration(minimumDelay: 0.040, startsAtOnce: true)
    /// The RTCP minimum interval in seconds (RFC 3550 T_min; the first report comes after about
    /// half of it). 5 s is the RFC default; 1 s gives round-trip times and loss reports sooner.
    public var rtcpMinimumInterval: Double = 5
    /// Offers and accepts RFC 4733 telephone-event (needed by `sendDTMF`).
    public var telephoneEvents = true
    /// Makes the call's encoder and decoder once the codec is negotiated: the real codecs
    /// (`CallCodecFactory.standard`) unless a benchmark sets its own (wcs-bench-peer's cheap far ends).
    public var codecFactory: CallCodecFactory = .standard
    /// Keeps the call's sockets on the loop (the receive path before the media clock read them):
    /// only for the benchmarks' and tests' A/B runs of the old path; false in the product.
    public var receivesOnLoopOnly = false
    /// The media clocks the call's engine is placed on: the process's pool, or a test's own.
    var mediaClocks = MediaClockPool.shared

    /// A configuration; `ice` defaults to libnice's interface enumeration with no STUN/TURN.
    public init(ice: ICEConfiguration = ICEConfiguration(controlling: false), includeCandidates: Bool = true,
                codecs: [AudioCodecKind] = [.opus, .pcmu, .pcma], opusBitrate: Int = 32_000, opusDTX: Bool = false,
                opusFEC: Bool = true, dtlsTimeout: Double = 10, mediaTimeout: Double = 30,
                jitter: JitterBufferConfiguration = CallMediaConfiguration.defaultJitter, rtcpMinimumInterval: Double = 5,
                telephoneEvents: Bool = true) {
        self.ice = ice
        self.includeCandidates = includeCandidates
        self.codecs = codecs
        self.opusBitrate = opusBitrate
        self.opusDTX = opusDTX
        self.opusFEC = opusFEC
        self.dtlsTimeout = dtlsTimeout
        self.mediaTimeout = mediaTimeout
        self.jitter = jitter
        self.rtcpMinimumInterval = rtcpMinimumInterval
        self.telephoneEvents = telephoneEvents
    }

    /// Throws `CallMediaError.invalidConfiguration` for values that cannot work.
    func validate() throws(CallMediaError) {
        func check(_ condition: Bool, _ reason: String) throws(CallMediaError) {
            if !condition { throw .invalidConfiguration(reason) }
        }
        try check(!codecs.isEmpty, "codecs must not be empty")
        try check(Set(codecs).count == codecs.count, "codecs must not repeat")
        try check((6_000...510_000).contains(opusBitrate), "opusBitrate \(opusBitrate) must be 6000...510000")
        try check(dtlsTimeout.isFinite && dtlsTimeout > 0, "dtlsTimeout must be a positive number of seconds")
        try check(mediaTimeout.isFinite && mediaTimeout > 0, "mediaTimeout must be a positive number of seconds")
        try check(rtcpMinimumInterval.isFinite && rtcpMinimumInterval >= 0.1, "rtcpMinimumInterval must be at least 0.1 s")
    }
}
