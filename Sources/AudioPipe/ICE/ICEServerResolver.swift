#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns STUN/TURN host names into the IP literals libnice requires.
///
/// Resolution uses the blocking `getaddrinfo`, so it runs in `ICEAgent.gather()` before any
/// work is handed to the loop thread (which must never block on DNS).
enum ICEServerResolver {
    /// `host` itself when it is an IPv4/IPv6 literal, else its first resolved address.
    static func numericAddress(_ host: String) throws(ICEError) -> String {
        if isIPLiteral(host) { return host }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #else
        hints.ai_socktype = SOCK_DGRAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else {
            throw .unresolvableServer(host)
        }
        defer { freeaddrinfo(results) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let text = numericHost(of: entry.pointee) { return text }
            cursor = entry.pointee.ai_next
        }
        throw .unresolvableServer(host)
    }

    /// Whether `text` parses as an IPv4 or IPv6 address.
    static func isIPLiteral(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    private static func numericHost(of entry: addrinfo) -> String? {
        guard let address = entry.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, entry.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
