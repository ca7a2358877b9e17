import CNice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns STUN/TURN host names into the IP literals libnice requires, and picks which of a
/// name's addresses the agent uses; `wcs-agent doctor` probes the same ones.
///
/// A name often resolves to both families (`localhost` is `::1` and `127.0.0.1` on a stock
/// Debian, `::1` first), while the server may listen on one family only. Taking the first
/// address would then lose the relay or the server-reflexive candidate, and the call with it:
/// - TURN gets one relay per family (the first IPv4 and the first IPv6 address); libnice
///   allocates from host candidates of the matching family, and whichever answers gives a relay.
/// - STUN: libnice takes one server, so the address follows the local addresses in use.
///
/// Resolution uses the blocking `getaddrinfo`, so it runs in `ICEAgent.gather()` (or the
/// doctor's thread) before any work is handed to the loop thread, which must never block on DNS.
public enum ICEServerResolver {
    /// The numeric addresses of a host name in the resolver's order, or nil when it does not
    /// resolve. `system` (getaddrinfo) in production; tests pass a fixed list.
    public typealias Lookup = @Sendable (String) -> [String]?

    /// `getaddrinfo` (UDP hints, both families), deduplicated, order kept.
    public static let system: Lookup = { systemAddresses($0) }

    /// Every address of `host`: itself when it is an IP literal, else what `lookup` gives.
    public static func addresses(of host: String, lookup: Lookup = system) throws(ICEError) -> [String] {
        if isIPLiteral(host) { return [host] }
        guard let found = lookup(host)?.filter(isIPLiteral), !found.isEmpty else { throw .unresolvableServer(host) }
        return found.reduce(into: []) { unique, address in if !unique.contains(address) { unique.append(address) } }
    }

    /// The addresses a TURN server named `host` is used at: the first IPv4 and the first IPv6
    /// address, in the resolver's order.
    public static func relayAddresses(of host: String, lookup: Lookup = system) throws(ICEError) -> [String] {
        let all = try addresses(of: host, lookup: lookup)
        let picks = [all.first(where: isIPv4), all.first { !isIPv4($0) }]
        return all.filter { picks.contains($0) }
    }

    /// The one address a STUN server named `host` is used at. IPv4 when the agent has IPv4 host
    /// addresses (or lets libnice choose them and an interface has one): a server-reflexive
    /// candidate matters behind an IPv4 NAT, and libnice sends the Binding request only from
    /// host candidates of the server's family, so a server address of the other family finds
    /// nothing. IPv6 when every local address in use is IPv6. Else the first address.
    public static func stunAddress(of host: String, localAddresses: [String], lookup: Lookup = system) throws(ICEError) -> String {
        let all = try addresses(of: host, lookup: lookup)
        let wanted = localUsesIPv4(localAddresses) ? all.first(where: isIPv4) : all.first { !isIPv4($0) }
        return wanted ?? all[0]
    }

    /// Whether the agent gathers on an IPv4 address: a configured IPv4 literal or interface
    /// name (`NiceLocalAddress` takes an interface's IPv4 address), or, with none configured,
    /// an IPv4 address among libnice's own choice (or no choice at all: IPv4 is the default).
    static func localUsesIPv4(_ localAddresses: [String]) -> Bool {
        let inUse = localAddresses.isEmpty ? libniceLocalAddresses() : localAddresses
        return inUse.isEmpty || inUse.contains { isIPv4($0) || !isIPLiteral($0) }
    }

    /// Whether `text` parses as an IPv4 or IPv6 address.
    static func isIPLiteral(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    static func isIPv4(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4)
        return inet_pton(AF_INET, text, &buffer) == 1
    }

    private static func systemAddresses(_ host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #else
        hints.ai_socktype = SOCK_DGRAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else { return nil }
        defer { freeaddrinfo(results) }
        return sequence(first: first, next: { $0.pointee.ai_next }).compactMap { numericHost(of: $0.pointee) }
    }

    private static func numericHost(of entry: addrinfo) -> String? {
        guard let address = entry.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, entry.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The addresses libnice gathers on when none are configured (non-loopback, interfaces up).
    private static func libniceLocalAddresses() -> [String] {
        var found: [String] = []
        let list = nice_interfaces_get_local_ips(0)
        defer { g_list_free(list) }
        var node = list
        while let current = node {
            if let text = current.pointee.data?.assumingMemoryBound(to: gchar.self) {
                found.append(String(cString: text))
                g_free(text)
            }
            node = current.pointee.next
        }
        return found
    }
}
