import FoundationEssentials
import Synchronization

/// Masks registered secrets (auth tokens) in text: the second line of defence behind "never log
/// secrets". `AgentLogger` applies it to every line.
///
/// Only whole occurrences are masked: one with a letter or digit right before or after it is part of
/// a longer word and stays. Human-chosen secrets (SIP, TURN passwords, the push secret) are not
/// registered: they are never formatted into log text in the first place, and masking a password
/// that is an ordinary word would reveal it ("it holds a [redacted]"). Secrets shorter than 4
/// characters are ignored. Thread-safe.
public enum SecretRedactor {
    /// What a masked secret is replaced with.
    public static let mask = "[redacted]"

    /// Secrets shorter than this are not registered.
    public static let minimumLength = 4

    private static let store = SecretStore()

    /// Registers `secret` so that `redact` masks it from now on.
    public static func register(_ secret: String) {
        guard secret.count >= minimumLength else { return }
        store.add(secret)
    }

    /// Forgets `secret` (e.g. a replaced token). Unknown secrets are ignored.
    public static func unregister(_ secret: String) {
        store.remove(secret)
    }

    /// `text` with every registered secret replaced by `mask` (longest secrets first).
    public static func redact(_ text: String) -> String {
        let secrets = store.snapshot()
        guard !secrets.isEmpty else { return text }
        var result = text
        for secret in secrets where result.contains(secret) {
            result = maskWhole(secret, in: result)
        }
        return result
    }

    /// `text` with each occurrence of `secret` that is not part of a longer word replaced by `mask`.
    static func maskWhole(_ secret: String, in text: String) -> String {
        var result = ""
        var rest = text[...]
        while let found = rest.firstRange(of: secret) {
            let before = found.lowerBound > rest.startIndex ? rest[rest.index(before: found.lowerBound)] : nil
            let after = found.upperBound < rest.endIndex ? rest[found.upperBound] : nil
            let inWord = [before, after].contains { $0?.isLetter == true || $0?.isNumber == true }
            result += rest[..<found.lowerBound]
            result += inWord ? String(rest[found]) : mask
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}

/// The registered secrets, read by every log line on any thread.
private final class SecretStore: Sendable {
    private let secrets = Mutex<[String]>([])  // sorted longest first

    func add(_ secret: String) {
        secrets.withLock { secrets in
            guard !secrets.contains(secret) else { return }
            secrets.append(secret)
            secrets.sort { $0.count > $1.count }
        }
    }

    func remove(_ secret: String) {
        secrets.withLock { $0.removeAll { $0 == secret } }
    }

    func snapshot() -> [String] { secrets.withLock { $0 } }
}
