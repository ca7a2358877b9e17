/// Round-trip time from a received report block (RFC 3550 section 6.4.1).
public enum RoundTripTime {
    /// RTT = A - LSR - DLSR in compact NTP units, where A is the compact NTP time at which the
    /// report arrived. Returns seconds, or nil when LSR is 0 (no SR received by the peer yet).
    /// A negative result (clock glitch, bogus report) is clamped to 0.
    public static func seconds(arrival: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) -> Double? {
        guard lastSenderReport != 0 else { return nil }
        let difference = Int32(bitPattern: arrival &- lastSenderReport &- delaySinceLastSenderReport)
        return difference <= 0 ? 0 : Double(difference) / 65_536
    }

    /// The RTT measured by `block` arriving at NTP time `arrival`; see
    /// `seconds(arrival:lastSenderReport:delaySinceLastSenderReport:)`.
    public static func seconds(from block: RTCPReportBlock, arrival: NTPTimestamp) -> Double? {
        seconds(
            arrival: arrival.compact, lastSenderReport: block.lastSenderReport,
            delaySinceLastSenderReport: block.delaySinceLastSenderReport)
    }
}
