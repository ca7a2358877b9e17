/// The packet index of one SRTP or SRTCP stream and its replay list (RFC 3711 §3.3.1-§3.3.2):
/// the highest index seen and a 128-packet sliding window behind it, as libsrtp keeps by default.
///
/// Plain value, owned by the `SRTPCryptoContext` of one direction (sender or receiver).
struct SRTPReplayWindow {
    /// Packets behind the highest index that are still remembered.
    static let size: UInt64 = 128

    /// The highest index accepted so far; nil before the first packet.
    private(set) var highest: UInt64?
    /// Bit i set: index `highest - i` was accepted.
    private var seen: (UInt64, UInt64) = (0, 0)

    /// The 48-bit SRTP packet index of an RTP sequence number (RFC 3711 Appendix A: the
    /// rollover counter guessed from the highest sequence number seen). While the rollover
    /// counter is 0, a guess below 0 is taken as ROC 0, as libsrtp does.
    func estimateIndex(sequence: UInt16) -> UInt64 {
        guard let highest else { return UInt64(sequence) }
        let roc = highest >> 16
        let last = Int(highest & 0xFFFF)
        let seq = Int(sequence)
        var guess = roc
        if last < 32_768 {
            if seq - last > 32_768, roc > 0 {
                guess = roc - 1
            }
        } else if last - 32_768 > seq {
            guess = roc + 1
        }
        return guess << 16 | UInt64(sequence)
    }

    /// Whether `index` is new: ahead of the window or in it and not seen yet.
    func isFresh(_ index: UInt64) -> Bool {
        guard let highest, index <= highest else { return true }
        let behind = highest - index
        guard behind < Self.size else { return false }
        return !bit(behind)
    }

    /// Records `index` as accepted (after it authenticated).
    mutating func accept(_ index: UInt64) {
        guard let current = highest else {
            highest = index
            seen = (1, 0)
            return
        }
        if index > current {
            shift(by: index - current)
            highest = index
            seen.0 |= 1
        } else {
            setBit(current - index)
        }
    }

    private func bit(_ position: UInt64) -> Bool {
        position < 64 ? seen.0 >> position & 1 == 1 : seen.1 >> (position - 64) & 1 == 1
    }

    private mutating func setBit(_ position: UInt64) {
        if position < 64 { seen.0 |= 1 << position } else if position < 128 { seen.1 |= 1 << (position - 64) }
    }

    /// Moves the window forward by `distance` packets.
    private mutating func shift(by distance: UInt64) {
        if distance >= 128 {
            seen = (0, 0)
        } else if distance >= 64 {
            seen = (0, seen.0 << (distance - 64))
        } else if distance > 0 {
            seen = (seen.0 << distance, seen.1 << distance | seen.0 >> (64 - distance))
        }
    }
}
