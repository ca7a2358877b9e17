import MainLoop

/// Whether a server answers: a WebSocket is opened to it (TCP, TLS verified as for the session, the
/// HTTP upgrade) and closed at once, without a `connection` message, so no session, token or SIP
/// registration is involved. The agent probes the primary this way while a backup holds its session.
public enum ServerProbe {
    /// True when a socket to `url` opened within the configuration's connect timeout.
    public static func answers(url: String, like configuration: WCSSessionConfiguration, loop: MainLoop = .shared) async -> Bool {
        var options = WebSocketOptions(url: url, caFile: configuration.caFile,
                                       allowInsecureTLS: configuration.allowInsecureTLS,
                                       connectTimeout: configuration.connectTimeout)
        options.hostLookup = configuration.hostLookup
        let socket = WebSocketConnection(options: options, loop: loop)
        socket.connect()
        for await event in socket.events {
            switch event {
            case .opened:
                socket.close(code: 1000, reason: "probe")
                return true
            case .failed, .closed:
                return false
            case .text, .binary:
                continue
            }
        }
        return false
    }
}
