import Foundation
import Synchronization

/// Masks registered secrets (SIP password, auth token) in text: the second line of defence behind
/// "never log secrets". `AgentLogger` applies it to every line.
///
/// Secrets shorter than 4 characters are ignored (masking them would garble ordinary text).
/// Thread-safe.
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
            result = result.replacingOccurrences(of: secret, with: mask)
        }
        return result
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
