import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// How the kernel notices a dead TCP path under the WebSocket, even when no WCS ping is due:
/// `TCP_USER_TIMEOUT` ends the connection when sent data (or a keepalive probe) stays unacknowledged
/// for `userTimeout` seconds, and TCP keepalive probes an idle connection every `keepaliveInterval`
/// seconds after `keepaliveIdle` seconds of silence, so an idle dead path is noticed too.
///
/// A plain value; applied once per socket by the connection on the loop thread, when the socket opens.
public struct TCPLiveness: Sendable, Equatable {
    /// Seconds of unacknowledged data before the kernel drops the connection (`TCP_USER_TIMEOUT`).
    public var userTimeout: Double
    /// Seconds of silence before the first keepalive probe (`TCP_KEEPIDLE`).
    public var keepaliveIdle: Double
    /// Seconds between keepalive probes (`TCP_KEEPINTVL`).
    public var keepaliveInterval: Double
    /// Unanswered probes that end the connection (`TCP_KEEPCNT`; `userTimeout` ends it first when shorter).
    public var keepaliveCount: Int

    /// Settings that notice a dead path within about `seconds` (idle or busy): user timeout
    /// `seconds`, first probe after a third of it, then one every third. Nil for 0 (kernel defaults).
    public static func within(seconds: Double) -> TCPLiveness? {
        guard seconds > 0, seconds.isFinite else { return nil }
        let third = max(1, (seconds / 3).rounded(.down))
        return TCPLiveness(userTimeout: seconds, keepaliveIdle: third, keepaliveInterval: third, keepaliveCount: 3)
    }

    /// Creates settings; see the properties.
    public init(userTimeout: Double, keepaliveIdle: Double, keepaliveInterval: Double, keepaliveCount: Int) {
        self.userTimeout = userTimeout
        self.keepaliveIdle = keepaliveIdle
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveCount = keepaliveCount
    }

    /// Sets the options on a connected TCP socket; returns a description of each option the kernel
    /// refused (empty when all took).
    @discardableResult
    func apply(toSocket fd: Int32) -> [String] {
        let tcp = Int32(IPPROTO_TCP)
        let settings: [(String, Int32, Int32, Int32)] = [
            ("SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, 1),
            ("TCP_KEEPIDLE", tcp, TCP_KEEPIDLE, Int32(max(1, keepaliveIdle.rounded(.up)))),
            ("TCP_KEEPINTVL", tcp, TCP_KEEPINTVL, Int32(max(1, keepaliveInterval.rounded(.up)))),
            ("TCP_KEEPCNT", tcp, TCP_KEEPCNT, Int32(max(1, keepaliveCount))),
            ("TCP_USER_TIMEOUT", tcp, Int32(TCP_USER_TIMEOUT), Int32(min(userTimeout * 1000, Double(Int32.max)))),
        ]
        return settings.compactMap { name, level, option, value in
            var v = value
            guard setsockopt(fd, level, option, &v, socklen_t(MemoryLayout<Int32>.size)) != 0 else { return nil }
            return "\(name)=\(value): \(String(cString: strerror(errno)))"
        }
    }
}

extension ConnectionCore {
    /// On the loop, when the socket opened: sets `options.tcpLiveness` and notes the socket's ends.
    func tuneOpenedSocket(_ fd: Int32) {
        guard fd >= 0 else { return }
        if let liveness = options.tcpLiveness {
            for refused in liveness.apply(toSocket: fd) { Log.warning("transport", "socket option refused: \(refused)") }
        }
        let path = SocketPath.of(socket: fd)
        openedPath.withLock { $0 = path }
    }
}
