import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// Sends `sd_notify(3)` messages (readiness, status, watchdog) to systemd.
///
/// Configured from `NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace) and
/// `WATCHDOG_USEC`/`WATCHDOG_PID`. Without `NOTIFY_SOCKET` every call is a no-op, so the daemon can
/// call it unconditionally. Thread-safe: each message is one datagram on a fresh socket.
public final class SystemdNotifier: Sendable {
    /// The notification socket (`NOTIFY_SOCKET`), or `nil` when not under a `Type=notify` unit.
    public let socketPath: String?
    /// How often to call `watchdog()`: half of `WATCHDOG_USEC`, in seconds; `nil` when no watchdog
    /// is configured for this process.
    public let watchdogInterval: Double?
    private let sentStatus = Mutex<String?>(nil)

    /// Reads the systemd variables from `environment`.
    public init(environment: [String: String]) {
        let socket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let socket, !(socket.hasPrefix("/") || socket.hasPrefix("@")) {
            Log.warning("systemd", "unsupported NOTIFY_SOCKET address \(socket); notifications disabled")
            socketPath = nil
        } else {
            socketPath = socket
        }
        var interval: Double?
        if let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
            let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
            if pidMatches { interval = Double(usec) / 2_000_000 }
        }
        watchdogInterval = interval
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends a raw state string such as `READY=1\nSTATUS=connected`. Returns `false` when disabled
    /// or when sending failed (failures are logged at debug level, never thrown).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        for line in state.split(separator: "\n") where line.hasPrefix("STATUS=") {
            let text = String(line.dropFirst("STATUS=".count))
            sentStatus.withLock { $0 = text }
        }
        guard let socketPath else { return false }
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(socketPath, operation: "notify systemd at")
        } catch {
            Log.debug("systemd", error.description)
            return false
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            Log.debug("systemd", SystemCallError.current("create notify socket").description)
            return false
        }
        defer { FileDescriptorIO.close(fd) }
        let bytes = Array(state.utf8)
        let sent = address.withSockaddr { sockaddr, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddr, length) }
        }
        guard sent == bytes.count else {
            Log.debug("systemd", SystemCallError.current("notify systemd at", path: socketPath).description)
            return false
        }
        return true
    }

    /// `READY=1`, with an optional status line.
    public func ready(status: String? = nil) {
        notify("READY=1" + (status.map { "\nSTATUS=" + Self.oneLine($0) } ?? ""))
    }

    /// `STATUS=...`: the free-form text shown by `systemctl status`.
    public func status(_ text: String) {
        notify("STATUS=" + Self.oneLine(text))
    }

    /// `STOPPING=1`, with an optional status line.
    public func stopping(status: String? = nil) {
        notify("STOPPING=1" + (status.map { "\nSTATUS=" + Self.oneLine($0) } ?? ""))
    }

    /// `RELOADING=1` with the `MONOTONIC_USEC` stamp systemd wants: a configuration reload
    /// began. Follow it with `ready(status:)` once the reload is done (or failed).
    public func reloading() {
        let usec = UInt64(MonotonicTime.nanoseconds() / 1000)
        notify("RELOADING=1\nMONOTONIC_USEC=\(usec)")
    }

    /// The last `STATUS=` text sent (also recorded when notifications are disabled).
    public var lastStatus: String? { sentStatus.withLock { $0 } }

    /// `WATCHDOG=1`: call every `watchdogInterval` seconds while healthy.
    public func watchdog() {
        notify("WATCHDOG=1")
    }

    /// Newlines would start a new assignment; replace them (each LF scalar, also the one in CRLF).
    /// `systemctl status` shows the text in a terminal: other control and bidi characters (server
    /// text in an error) are escaped (`UntrustedText`).
    static func oneLine(_ text: String) -> String {
        UntrustedText.escaped(String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" ? " " : $0 })))
    }
}
