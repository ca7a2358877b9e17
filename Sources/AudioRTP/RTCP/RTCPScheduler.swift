/// When to send the next RTCP compound, per RFC 3550 section 6.3 (appendix A.7).
///
/// Choice for this agent: the RFC algorithm with its 5 s minimum (2.5 s before the first
/// report), RTCP bandwidth 5 % of the session bandwidth, the average compound size smoothed
/// with weight 1/16, and the interval randomized by a factor uniform in [0.5, 1.5) and divided
/// by e - 3/2 (the timer-reconsideration compensation). For a two-party audio call the
/// bandwidth term is far below the minimum, so reports go out every 2.05-6.16 s (mean about
/// 4.1 s), the first within 1.03-3.08 s: the same range WebRTC stacks use for audio (libwebrtc
/// defaults to 5 s with the same randomization), and well inside typical 30 s media timeouts.
/// A smaller `minimumInterval` (e.g. 1 s) can be configured for faster RTT/loss feedback.
public struct RTCPScheduler: Sendable {
    /// e - 3/2, the RFC 3550 compensation for timer reconsideration.
    public static let compensation = 2.718_281_828_459_045 - 1.5

    /// The deterministic minimum interval in seconds (halved before the first report).
    public var minimumInterval: Double
    /// RTCP bandwidth in octets per second (5 % of the session bandwidth).
    public var rtcpBandwidth: Double
    /// Session members (2 for a call).
    public var members: Int = 2
    /// Members that sent RTP recently.
    public var senders: Int = 2
    /// Smoothed size of our compounds in octets, lower-layer headers included.
    public private(set) var averagePacketSize: Double
    /// When the next compound is due (monotonic seconds), or nil before `start`.
    public private(set) var nextSendTime: Double?
    /// Whether at least one compound was sent.
    public private(set) var hasSent = false

    /// A scheduler. `sessionBandwidth` is in bits per second (Opus voice: 32-64 kbit/s).
    public init(minimumInterval: Double = 5, sessionBandwidth: Double = 64_000, initialAveragePacketSize: Double = 128) {
        self.minimumInterval = minimumInterval.isFinite ? max(0.1, minimumInterval) : 5
        self.rtcpBandwidth = sessionBandwidth.isFinite ? max(1, sessionBandwidth * 0.05 / 8) : 400
        self.averagePacketSize = max(1, initialAveragePacketSize)
    }

    /// The interval before randomization: max(T_min, average size x members / RTCP bandwidth),
    /// with senders and receivers sharing the bandwidth 25/75 when senders are few.
    public func deterministicInterval(weSent: Bool) -> Double {
        let minimum = hasSent ? minimumInterval : minimumInterval / 2
        var bandwidth = rtcpBandwidth
        var participants = Double(max(1, members))
        if Double(senders) <= Double(members) * 0.25 {
            if weSent {
                bandwidth *= 0.25
                participants = Double(max(1, senders))
            } else {
                bandwidth *= 0.75
                participants = Double(max(1, members - senders))
            }
        }
        return max(minimum, averagePacketSize * participants / bandwidth)
    }

    /// A randomized interval: the deterministic one x U[0.5, 1.5) / (e - 3/2).
    public func randomizedInterval(weSent: Bool, using generator: inout some RandomNumberGenerator) -> Double {
        deterministicInterval(weSent: weSent) * Double.random(in: 0.5..<1.5, using: &generator) / Self.compensation
    }

    /// Schedules the first compound from monotonic time `now`.
    public mutating func start(now: Double, weSent: Bool = false, using generator: inout some RandomNumberGenerator) {
        nextSendTime = now + randomizedInterval(weSent: weSent, using: &generator)
    }

    /// Schedules the first compound, randomized with the system generator.
    public mutating func start(now: Double, weSent: Bool = false) {
        var generator = SystemRandomNumberGenerator()
        start(now: now, weSent: weSent, using: &generator)
    }

    /// Whether a compound should be sent at `now`.
    public func isDue(now: Double) -> Bool {
        guard let nextSendTime else { return false }
        return now >= nextSendTime
    }

    /// Records a sent compound of `packetSize` octets (add 28 for IPv4/UDP, 48 for IPv6/UDP)
    /// and schedules the next one.
    public mutating func didSend(now: Double, packetSize: Int, weSent: Bool, using generator: inout some RandomNumberGenerator) {
        averagePacketSize += (Double(max(0, packetSize)) - averagePacketSize) / 16
        hasSent = true
        nextSendTime = now + randomizedInterval(weSent: weSent, using: &generator)
    }

    /// Records a sent compound and schedules the next one with the system generator.
    public mutating func didSend(now: Double, packetSize: Int, weSent: Bool) {
        var generator = SystemRandomNumberGenerator()
        didSend(now: now, packetSize: packetSize, weSent: weSent, using: &generator)
    }
}
