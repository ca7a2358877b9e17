/// The one place where a packet array is transformed in place by an `SRTPCryptoContext`: the
/// array grows by the bytes the transform appends (within its capacity, so a reused buffer with
/// room for them is not reallocated), the context works on its bytes, and the array is cut to
/// the length the context reports. Used by `SRTPSender` and `SRTPReceiver`.
package enum SRTPInPlace {
    /// Packets longer than this are refused (an IP datagram cannot carry more).
    package static let maximumPacketLength = 65_535
    /// The bytes a transform appends start as zeros (at most `SRTPSender.maximumGrowth`).
    private static let zeros = [UInt8](repeating: 0, count: 32)

    /// Runs `operation` on `packet` grown by `growth` bytes; `operation` returns the new length.
    /// On a throw the array is cut back to its original length; its bytes are then unspecified
    /// (a failed unprotect may have decrypted part of it).
    static func transform(
        _ packet: inout [UInt8], growth: Int,
        _ operation: (UnsafeMutableBufferPointer<UInt8>, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) {
        let length = packet.count
        guard length <= maximumPacketLength else { throw .badLength }
        if growth > 0 { packet.append(contentsOf: Self.zeros[0..<growth]) }
        var failure: SRTPError?
        let result = packet.withUnsafeMutableBufferPointer { buffer -> Int in
            do throws(SRTPError) {
                return try operation(buffer, length)
            } catch {
                failure = error
                return length
            }
        }
        packet.removeLast(packet.count - result)
        if let failure { throw failure }
    }
}

extension SRTPProfile {
    /// Throws `SRTPError.invalidKeyLength` unless `key` and `salt` fit this profile.
    func checkKey(_ key: [UInt8], salt: [UInt8]) throws(SRTPError) {
        if key.count != keyLength { throw .invalidKeyLength(expected: keyLength, actual: key.count) }
        if salt.count != saltLength { throw .invalidKeyLength(expected: saltLength, actual: salt.count) }
    }
}
