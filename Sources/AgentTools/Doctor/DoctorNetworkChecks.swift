import AgentCore
import CSSL
import FoundationEssentials
import MainLoop
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// The doctor's network checks: the server's name resolves, a WebSocket (with TLS verified
/// against the CA in use) opens to it, and the STUN and TURN servers answer
/// (those two checks are in DoctorICEServerChecks.swift). Nothing is logged
/// in to: the WebSocket is closed right after the upgrade, and a TURN allocation is released.
///
/// Runs on the CLI's task; the WebSocket is driven by the shared main loop like the daemon's.
enum DoctorNetworkChecks {
    /// DNS for the server's host (a numeric address needs none).
    static func dns(_ config: AgentConfig) -> DoctorVerdict {
        guard let url = URLComponents(string: config.server), let host = url.host, !host.isEmpty else {
            return .failure("dns", "cannot read a host name in \(config.server)")
        }
        let bare = host.trimming { $0 == "[" || $0 == "]" }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        if getaddrinfo(bare, nil, &hints, &list) == 0 {
            freeaddrinfo(list)
            return .ok("dns", "\(bare) is a numeric address")
        }
        hints.ai_flags = 0
        let status = getaddrinfo(bare, nil, &hints, &list)
        guard status == 0 else { return .failure("dns", "\(bare) does not resolve: \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var next = list
        while let entry = next {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(cString: text)
                if !addresses.contains(address) { addresses.append(address) }
            }
            next = entry.pointee.ai_next
        }
        return .ok("dns", "\(bare) -> \(addresses.joined(separator: ", "))")
    }

    /// Opens a WebSocket to the server (TCP, TLS verified, HTTP upgrade) and closes it.
    static func server(_ config: AgentConfig, timeout: Double) async -> [DoctorVerdict] {
        let secure = config.server.lowercased().hasPrefix("wss:")
        let ca = config.caFile.map { "CA file \($0)" } ?? "the system CAs (\(String(cString: X509_get_default_cert_file())), \(String(cString: X509_get_default_cert_dir())))"
        let options = WebSocketOptions(url: config.server, caFile: config.caFile, allowInsecureTLS: config.insecureTLS,
                                       connectTimeout: min(timeout, config.connectTimeout))
        let connection = WebSocketConnection(options: options)
        connection.connect()
        var verdicts: [DoctorVerdict] = []
        for await event in connection.events {
            switch event {
            case .opened:
                let tls = !secure ? "no TLS (ws://)" : config.insecureTLS ? "TLS NOT verified (insecure_tls)" : "TLS verified against \(ca)"
                verdicts.append(.ok("server", "\(config.server): WebSocket opened; \(tls)"))
                if secure && config.insecureTLS { verdicts.append(.warning("server", "insecure_tls is on: anyone on the path can read the session token")) }
                if !secure { verdicts.append(.warning("server", "ws:// sends the session token and SIP password in clear; use wss:// outside a lab")) }
                connection.close()
            case .failed(let error):
                let hint = error.kind == .tls ? " (CA in use: \(ca); set [server] ca_file for a private CA)" : ""
                verdicts.append(.failure("server", "\(config.server): \(error)\(hint)"))
            case .closed, .text, .binary:
                break
            }
        }
        return verdicts.isEmpty ? [.failure("server", "\(config.server): the connection ended before it opened")] : verdicts
    }

    /// `host:port`, `[v6]:port` or a bare host (port 3478).
    static func hostAndPort(_ text: String) -> (String, Int) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            return (host, Int(text[close...].dropFirst(2)) ?? 3478)
        }
        let parts = text.split(separator: ":")
        return (String(parts.first ?? ""), parts.count == 2 ? Int(parts[1]) ?? 3478 : 3478)
    }
}
