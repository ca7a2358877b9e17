import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A host name's numeric addresses, best first, or a `.dns` error (see `WebSocketOptions.hostLookup`).
public typealias HostLookup = @Sendable (String) -> Result<[String], WebSocketError>

/// Resolves host names with `getaddrinfo` off the loop thread (Debian's libwebsockets has no
/// async DNS, so letting lws resolve would block every connection on the loop).
enum HostResolver {
    private static let queue = DispatchQueue(label: "wcs.transport.dns", attributes: .concurrent)

    /// Resolves `host` in the background (with `lookup`, else `getaddrinfo`) and calls `completion`
    /// (on a background thread) with the numeric addresses in the preferred order, or a `.dns` error.
    static func resolve(_ host: String, lookup: HostLookup? = nil,
                        completion: @escaping @Sendable (Result<[String], WebSocketError>) -> Void) {
        queue.async { completion((lookup ?? resolveNow)(host)) }
    }

    /// Blocking resolution; numeric results are de-duplicated, order kept.
    static func resolveNow(_ host: String) -> Result<[String], WebSocketError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(WebSocketError(kind: .dns, message: "could not resolve host '\(host)': \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let numeric = numericAddress(current.pointee), !addresses.contains(numeric) {
                addresses.append(numeric)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(WebSocketError(kind: .dns, message: "host '\(host)' has no IPv4 or IPv6 address"))
        }
        return .success(addresses)
    }

    private static func numericAddress(_ info: addrinfo) -> String? {
        guard info.ai_family == AF_INET || info.ai_family == AF_INET6, let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = getnameinfo(address, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
        guard status == 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
