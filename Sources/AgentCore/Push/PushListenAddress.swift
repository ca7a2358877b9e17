import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where the push webhook listens: a numeric IPv4 address or a bracketed IPv6 address and a port,
/// e.g. `127.0.0.1:8089` or `[::1]:8089`. Port 0 picks a free port (tests).
public struct PushListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The numeric host, without brackets.
    public let host: String
    /// The port (0 = any free port).
    public let port: Int
    /// Whether `host` is an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// Parses `HOST:PORT` / `[HOST]:PORT`. Throws `ConfigError` with the expected form; `what`
    /// names the setting in the message.
    public init(parsing text: String, what: String = "push listen address") throws(ConfigError) {
        let expected = "expected IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:8089"
        let trimmed = text.trimmingSpaces()
        let hostPart: Substring, portPart: Substring
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]"), trimmed[trimmed.index(after: close)...].hasPrefix(":") else {
                throw ConfigError("invalid \(what) \"\(text)\": \(expected)")
            }
            hostPart = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            portPart = trimmed[trimmed.index(close, offsetBy: 2)...]
        } else {
            guard let colon = trimmed.lastIndex(of: ":"), !trimmed[..<colon].contains(":") else {
                throw ConfigError("invalid \(what) \"\(text)\": \(expected)")
            }
            hostPart = trimmed[..<colon]
            portPart = trimmed[trimmed.index(after: colon)...]
        }
        guard let port = Int(portPart), (0...65535).contains(port) else {
            throw ConfigError("invalid port in \(what) \"\(text)\": \(expected)")
        }
        let host = String(hostPart)
        guard Self.socketAddress(host: host, port: 0) != nil else {
            throw ConfigError("invalid host in \(what) \"\(text)\": \(expected) (numeric addresses only)")
        }
        self.host = host
        self.port = port
    }

    /// An address with a known host and port.
    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The socket address, or nil when `host` is not a numeric address.
    static func socketAddress(host: String, port: Int) -> sockaddr_storage? {
        var storage = sockaddr_storage()
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
            Swift.withUnsafeBytes(of: address) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
            Swift.withUnsafeBytes(of: address) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
        }
        return storage
    }
}
