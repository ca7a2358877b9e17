#if canImport(Glibc)
import Glibc
#endif

/// How many descriptors the daemon's clients may hold, as shares of the process's descriptor
/// limit (the soft RLIMIT_NOFILE, read at every accept: `prlimit` or a systemd reload may change it
/// while the daemon runs). Control clients get a quarter, webhook connections an eighth: with
/// `LimitNOFILE=256` 64 and 32, with systemd's default 1024 256 and 128. The rest (more than half)
/// stays for the daemon's own work, which must never compete with idle clients: a call's sockets
/// (ICE, audio files, pipes), the WebSocket and its relogin, token and record writes, a new
/// `status`. At a cap, the oldest idle client is evicted first (`ControlServerCore`,
/// `PushWebhookListener`).
///
/// Pure functions of the limit; any thread.
enum DescriptorBudget {
    /// The soft descriptor limit (at most 1 << 20 when unlimited or unreadable).
    static func limit() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1 << 20 }
        return Int(min(limits.rlim_cur, 1 << 20))  // RLIM_INFINITY is the largest rlim_t
    }

    /// Control connections open at once: a quarter of `limit`, at least 8.
    static func controlConnections(limit: Int = limit()) -> Int { max(8, limit / 4) }

    /// Webhook connections open at once: an eighth of `limit`, at least 8.
    static func webhookConnections(limit: Int = limit()) -> Int { max(8, limit / 8) }
}
