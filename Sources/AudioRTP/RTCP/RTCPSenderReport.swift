/// A sender report, RTCP packet type 200 (RFC 3550 section 6.4.1).
public struct RTCPSenderReport: Sendable, Equatable {
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// Wall-clock time at which the report was sent.
    public var ntpTimestamp: NTPTimestamp
    /// The RTP timestamp corresponding to `ntpTimestamp` on the media clock.
    public var rtpTimestamp: UInt32
    /// Packets sent since the stream started (wrapping).
    public var packetCount: UInt32
    /// Payload octets sent since the stream started (wrapping).
    public var octetCount: UInt32
    /// Reception reports about other sources (at most 31 per packet).
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks, kept raw.
    public var profileExtension: [UInt8]

    /// A sender report from its fields.
    public init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, body: Range<Int>, count: Int) throws(RTPError) -> RTCPSenderReport {
        let (blocks, profileExtension) = try RTCPReportBlock.parseReports(bytes, body: body, fixedBytes: 24, count: count, kind: "SR")
        let start = body.lowerBound
        return RTCPSenderReport(
            ssrc: RTPWire.uint32(bytes, at: start),
            ntpTimestamp: NTPTimestamp(seconds: RTPWire.uint32(bytes, at: start + 4), fraction: RTPWire.uint32(bytes, at: start + 8)),
            rtpTimestamp: RTPWire.uint32(bytes, at: start + 12), packetCount: RTPWire.uint32(bytes, at: start + 16),
            octetCount: RTPWire.uint32(bytes, at: start + 20), reportBlocks: blocks, profileExtension: profileExtension)
    }

    func writeBody(into buffer: inout [UInt8]) {
        RTPWire.append(ssrc, to: &buffer)
        RTPWire.append(ntpTimestamp.seconds, to: &buffer)
        RTPWire.append(ntpTimestamp.fraction, to: &buffer)
        RTPWire.append(rtpTimestamp, to: &buffer)
        RTPWire.append(packetCount, to: &buffer)
        RTPWire.append(octetCount, to: &buffer)
        RTCPReportBlock.writeReports(reportBlocks, profileExtension: profileExtension, into: &buffer)
    }
}

/// A receiver report, RTCP packet type 201 (RFC 3550 section 6.4.2).
public struct RTCPReceiverReport: Sendable, Equatable {
    /// The reporter's SSRC.
    public var ssrc: UInt32
    /// Reception reports (at most 31 per packet; none is valid, e.g. before anything arrived).
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks, kept raw.
    public var profileExtension: [UInt8]

    /// A receiver report from its fields.
    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, body: Range<Int>, count: Int) throws(RTPError) -> RTCPReceiverReport {
        let (blocks, profileExtension) = try RTCPReportBlock.parseReports(bytes, body: body, fixedBytes: 4, count: count, kind: "RR")
        return RTCPReceiverReport(
            ssrc: RTPWire.uint32(bytes, at: body.lowerBound), reportBlocks: blocks, profileExtension: profileExtension)
    }

    func writeBody(into buffer: inout [UInt8]) {
        RTPWire.append(ssrc, to: &buffer)
        RTCPReportBlock.writeReports(reportBlocks, profileExtension: profileExtension, into: &buffer)
    }
}
