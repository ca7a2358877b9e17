/// The SRTP key derivation function (RFC 3711 §4.3.1 and §4.3.3, key_derivation_rate 0): the
/// AES-CM PRF keyed with the master key, over x = (label || 0^48) xor master salt. RFC 7714's GCM
/// profiles use the same KDF with the 12-byte salt padded to 14 bytes with zeros, as libsrtp does.
enum SRTPKeyDerivation {
    /// The six labels (RFC 3711 §4.3.2).
    enum Label: UInt8 {
        case rtpEncryption = 0, rtpAuthentication = 1, rtpSalt = 2
        case rtcpEncryption = 3, rtcpAuthentication = 4, rtcpSalt = 5
    }

    /// `length` bytes of session key for `label`.
    static func derive(masterKey: [UInt8], masterSalt: [UInt8], label: Label, length: Int) throws(SRTPError) -> [UInt8] {
        var x = masterSalt + [UInt8](repeating: 0, count: max(0, 14 - masterSalt.count))
        x[7] ^= label.rawValue
        var iv = x + [0, 0]
        var stream = [UInt8](repeating: 0, count: length)
        let cipher = try EVPCipher(mode: .counter, key: masterKey, encrypting: true)
        try iv.withUnsafeMutableBufferPointer { (ivBytes) throws(SRTPError) in
            try stream.withUnsafeMutableBufferPointer { (bytes) throws(SRTPError) in
                try cipher.applyKeystream(iv: ivBytes.baseAddress!, bytes.baseAddress!, count: length)
            }
        }
        return stream
    }
}
