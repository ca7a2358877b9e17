import CSSL

/// A file name made from far-end text (a call id): safe and unique for ids of any length and bytes.
///
/// An id of 1 to `plainLimit` characters from `[A-Za-z0-9_-]`, not starting with `-` and not ending
/// like a hashed name, is used as it is (a server's UUID call ids keep their readable names).
/// Any other id becomes a readable prefix (its first `prefixLimit` characters with every other
/// character `_`, `call` when empty) plus `-` and 24 hex digits of the id's SHA-256: `a/b` and `a_b`
/// get different names, a 300-character id a name of at most 65 bytes, an id `..` or `-rf` a name
/// that is neither a path nor an option. Injective up to SHA-256 collisions: plain names never end
/// in `-` + 24 hex digits, hashed names always do.
///
/// Pure functions; any thread.
enum SafeFileName {
    /// The longest id used as it is.
    static let plainLimit = 64
    /// The length of the readable prefix of a hashed name.
    static let prefixLimit = 40
    /// Hex digits of the hash in a hashed name.
    static let hashDigits = 24

    /// The file name stem for `id` (add your own extension).
    static func stem(for id: String) -> String {
        if isPlain(id) { return id }
        var prefix = String(id.unicodeScalars.prefix(prefixLimit).map { isPlainScalar($0) ? Character($0) : "_" })
        if prefix.hasPrefix("-") { prefix = "_" + prefix.dropFirst() }
        return (prefix.isEmpty ? "call" : prefix) + "-" + hash(id)
    }

    private static func isPlainScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
        default: false
        }
    }

    private static func isPlain(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= plainLimit, !id.hasPrefix("-"),
              id.unicodeScalars.allSatisfy(isPlainScalar) else { return false }
        return !looksHashed(id)
    }

    /// Ends in `-` and `hashDigits` lower-case hex digits, as every hashed name does.
    private static func looksHashed(_ id: String) -> Bool {
        let scalars = Array(id.unicodeScalars)
        guard scalars.count > hashDigits, scalars[scalars.count - hashDigits - 1] == "-" else { return false }
        return scalars.suffix(hashDigits).allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// The first `hashDigits` hex digits of the SHA-256 of the id's UTF-8.
    static func hash(_ id: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(id.utf8)
        _ = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        let hex = digest.prefix(hashDigits / 2).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return hex.joined()
    }
}
