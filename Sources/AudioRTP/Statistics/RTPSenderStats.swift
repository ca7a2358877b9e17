/// Send-side counters for one outgoing stream and the sender-info part of its SRs
/// (RFC 3550 section 6.4.1).
public struct RTPSenderStats: Sendable {
    /// The stream's SSRC.
    public let ssrc: UInt32
    /// The media clock rate in Hz.
    public let clockRate: Int
    /// Packets sent (wrapping at 2^32 as on the wire).
    public private(set) var packetCount: UInt32 = 0
    /// Payload octets sent (wrapping at 2^32 as on the wire).
    public private(set) var octetCount: UInt32 = 0
    /// Timestamp of the latest media packet, the anchor for extrapolating the SR's RTP time.
    public private(set) var lastMediaTimestamp: UInt32?
    /// When that media packet was sent (monotonic seconds).
    public private(set) var lastMediaSendTime: Double?
    /// NTP time of the latest SR built by `makeSenderReport`.
    public private(set) var lastSenderReportNTP: NTPTimestamp?
    /// RTP time of that SR.
    public private(set) var lastSenderReportRTPTimestamp: UInt32?
    /// Monotonic time at which that SR was built.
    public private(set) var lastSenderReportTime: Double?

    /// Counters for a new stream.
    public init(ssrc: UInt32, clockRate: Int) {
        self.ssrc = ssrc
        self.clockRate = max(1, clockRate)
    }

    /// Counts a sent packet. `mediaTimestamp` is the RTP timestamp of a media packet; pass
    /// nil for packets whose timestamp does not follow the media clock (telephone events).
    public mutating func recordSent(payloadBytes: Int, sendTime: Double, mediaTimestamp: UInt32?) {
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: max(0, payloadBytes))
        if let mediaTimestamp {
            lastMediaTimestamp = mediaTimestamp
            lastMediaSendTime = sendTime
        }
    }

    /// The RTP timestamp that corresponds to monotonic time `time`, extrapolated from the
    /// latest media packet; nil before any media was sent.
    public func rtpTimestamp(at time: Double) -> UInt32? {
        guard let lastMediaTimestamp, let lastMediaSendTime else { return nil }
        let elapsed = (time - lastMediaSendTime) * Double(clockRate)
        guard elapsed.isFinite, abs(elapsed) < 9.0e18 else { return lastMediaTimestamp }
        return lastMediaTimestamp &+ UInt32(truncatingIfNeeded: Int64(elapsed.rounded()))
    }

    /// Builds an SR at monotonic time `now` and remembers its NTP and RTP times; nil before
    /// any media was sent (send an RR instead).
    public mutating func makeSenderReport(
        now: Double, clock: NTPClock, reportBlocks: [RTCPReportBlock] = []
    ) -> RTCPSenderReport? {
        guard let rtpTimestamp = rtpTimestamp(at: now) else { return nil }
        let ntp = clock.timestamp(atMonotonic: now)
        lastSenderReportNTP = ntp
        lastSenderReportRTPTimestamp = rtpTimestamp
        lastSenderReportTime = now
        return RTCPSenderReport(
            ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpTimestamp, packetCount: packetCount,
            octetCount: octetCount, reportBlocks: reportBlocks)
    }
}
