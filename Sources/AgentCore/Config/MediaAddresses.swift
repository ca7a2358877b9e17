import FoundationEssentials
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// The addresses a call gathers ICE host candidates on, from `[media] addresses` and the server URL.
///
/// Configured addresses are used as given. Without any, libnice enumerates the interfaces itself
/// and skips loopback, which breaks the most common first try: a server (or the emulator) on
/// 127.0.0.1 or ::1 whose media side only answers on loopback. So when the server's host is a
/// loopback address (or `localhost`) and nothing is configured, the list is every address of every
/// interface that is up (what libnice would take) plus the loopback addresses.
///
/// A pure function over `getifaddrs(3)`; called on the agent's actor when a call's media is made.
public enum MediaAddresses {
    /// The `localAddresses` for a call's ICE agent; empty means libnice's own enumeration.
    public static func effective(configured: [String], server: String) -> [String] {
        guard configured.isEmpty, serverIsLoopback(server) else { return configured }
        let all = interfaceAddresses()
        let loopback = all.filter { $0.loopback }.map(\.address)
        guard !loopback.isEmpty else { return [] }
        return all.filter { !$0.loopback }.map(\.address) + loopback
    }

    /// Whether the URL's host is 127.0.0.0/8, ::1 or `localhost`.
    public static func serverIsLoopback(_ url: String) -> Bool {
        guard let bare = (try? WebSocketEndpoint(parsing: url))?.host.lowercased() else { return false }
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" { return true }
        var v4 = in_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 && UInt32(bigEndian: v4.s_addr) >> 24 == 127
    }

    /// Numeric addresses of the interfaces that are up; IPv6 link-local ones are left out (they
    /// need a scope, and libnice leaves them out too).
    static func interfaceAddresses() -> [(address: String, loopback: Bool)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [(address: String, loopback: Bool)] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(cString: host)
            if text.lowercased().hasPrefix("fe80:") { continue }
            if !found.contains(where: { $0.address == text }) { found.append((text, flags & Int32(IFF_LOOPBACK) != 0)) }
        }
        return found
    }
}
