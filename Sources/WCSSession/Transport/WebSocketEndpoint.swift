import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A parsed `ws://` / `wss://` URL: where to connect and what to say in the handshake.
///
/// Public so that configuration checks read a server URL exactly as the transport will (and
/// without Foundation's `URLComponents`, whose host getter runs ICU's IDNA code). A value type;
/// any thread.
public struct WebSocketEndpoint: Sendable, Equatable {
    /// The host as written, without IPv6 brackets (also the TLS name to verify).
    public let host: String
    /// The port, or the scheme's default (80, 443).
    public let port: Int
    /// Whether this is `wss://`.
    public let secure: Bool
    /// Path plus query, always starting with "/".
    public let path: String
    /// What kind of host this is; literals skip the resolver.
    public let hostKind: HostKind

    /// A host name, or an IPv4 or IPv6 literal.
    public enum HostKind: Sendable, Equatable {
        case name, ipv4, ipv6
    }

    /// The Host header value: brackets for IPv6, port only when not the default.
    var hostHeader: String {
        let bracketed = hostKind == .ipv6 ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    /// `host:port` for messages.
    var displayName: String { hostKind == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `url`, or throws a `.badURL` `WebSocketError` saying what is wrong.
    public init(parsing url: String) throws {
        func bad(_ why: String) -> WebSocketError {
            WebSocketError(kind: .badURL, message: "invalid WebSocket URL '\(url)': \(why)")
        }
        guard let schemeEnd = url.firstRange(of: "://") else { throw bad("expected ws:// or wss://") }
        switch url[..<schemeEnd.lowerBound].lowercased() {
        case "ws": secure = false
        case "wss": secure = true
        default: throw bad("the scheme must be ws or wss")
        }
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = String(rest[authorityEnd...])
        guard !authority.contains("@") else { throw bad("credentials in the URL are not supported") }

        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("unterminated IPv6 literal") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("unexpected text after the IPv6 literal") }
                portPart = after.dropFirst()
            }
            guard Self.isIPv6(String(hostPart)) else { throw bad("'\(hostPart)' is not an IPv6 address") }
            hostKind = .ipv6
        } else {
            if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            guard !hostPart.isEmpty else { throw bad("the host is missing") }
            guard hostPart.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                throw bad("the host '\(hostPart)' contains characters that are not allowed")
            }
            hostKind = Self.isIPv4(String(hostPart)) ? .ipv4 : .name
        }
        host = String(hostPart)

        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else {
                throw bad("the port '\(portPart)' is not a number from 1 to 65535")
            }
            port = value
        } else {
            port = secure ? 443 : 80
        }

        let fullPath = tail.hasPrefix("/") ? tail : "/" + tail
        guard fullPath.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw bad("the path must be percent-encoded ASCII without spaces")
        }
        path = fullPath
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        // A zone ("%eth0") is allowed after the address.
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var storage = in6_addr()
        return inet_pton(AF_INET6, address, &storage) == 1
    }
}
