/// What a configuration reload (SIGHUP) changes and how each change is applied.
///
/// Settings fall into four kinds (the lists name the config-file keys):
/// - `live`: applied in place, no reconnect: log level, audio source/sink, answer mode, media
///   settings (used from the next call on), backoff cap, and any setting added later that the
///   agent reads from its configuration as it goes (hooks, push settings).
/// - `reconnect`: connection settings (TLS, timeouts, probes, keepalive): the socket is closed
///   and a new one resumes the same server session by token.
/// - `relogin`: the server or the SIP account changed: calls in progress are hung up, the old
///   socket is closed, the stored token is dropped and a fresh login is made.
/// - `needsRestart`: the state directory and the control socket stay as they are until the
///   service restarts; the rest of the new configuration still applies.
public struct ConfigReloadPlan: Sendable, Equatable {
    /// The configuration to run with: the new one, with `needsRestart` settings kept at their running values.
    public let effective: AgentConfig
    /// Keys applied in place.
    public let live: [String]
    /// Keys that need a new connection resuming the same session by token.
    public let reconnect: [String]
    /// Keys that need a fresh login (new server session).
    public let relogin: [String]
    /// Keys ignored until a restart.
    public let needsRestart: [String]

    /// Compares the running configuration with a freshly loaded one.
    public init(running old: AgentConfig, loaded new: AgentConfig) {
        var effective = new
        effective.stateDir = old.stateDir
        effective.socketPath = old.socketPath
        effective.socketGroup = old.socketGroup
        effective.metricsListen = old.metricsListen
        effective.pushMQTT = old.pushMQTT
        self.effective = effective

        func changed<T: Equatable>(_ key: String, _ path: KeyPath<AgentConfig, T>, from a: AgentConfig, to b: AgentConfig) -> String? {
            a[keyPath: path] == b[keyPath: path] ? nil : key
        }
        needsRestart = [
            changed("[agent] state_dir", \.stateDir, from: old, to: new),
            changed("[agent] socket", \.socketPath, from: old, to: new),
            changed("[agent] socket_group", \.socketGroup, from: old, to: new),
            changed("[metrics] listen", \.metricsListen, from: old, to: new),
            changed("[push] mqtt", \.pushMQTT, from: old, to: new),
        ].compactMap { $0 }
        relogin = [
            changed("[server] url", \.server, from: old, to: new),
            changed("[server] app_key", \.appKey, from: old, to: new),
            changed("[sip] login", \.sipLogin, from: old, to: new),
            changed("[sip] auth_name", \.sipAuthName, from: old, to: new),
            changed("[sip] password", \.sipPassword, from: old, to: new),
            changed("[sip] domain", \.sipDomain, from: old, to: new),
            changed("[sip] outbound_proxy", \.sipOutboundProxy, from: old, to: new),
            changed("[sip] port", \.sipPort, from: old, to: new),
            changed("[sip] register", \.register, from: old, to: new),
        ].compactMap { $0 }
        reconnect = [
            changed("[server] ca_file", \.caFile, from: old, to: new),
            changed("[server] insecure_tls", \.insecureTLS, from: old, to: new),
            changed("[server] connect_timeout", \.connectTimeout, from: old, to: new),
            changed("[server] url (backup servers)", \.fallbackServers, from: old, to: new),
            changed("[sip] register_timeout", \.registerTimeout, from: old, to: new),
            changed("[agent] keepalive", \.keepAlive, from: old, to: new),
            changed("[agent] receive_probes", \.receiveProbes, from: old, to: new),
            changed("[agent] probes_interval", \.probesInterval, from: old, to: new),
            changed("[agent] tcp_timeout", \.tcpTimeout, from: old, to: new),
            changed("[agent] watch_network", \.watchNetwork, from: old, to: new),
        ].compactMap { $0 }
        var live = [
            changed("[agent] log_level", \.logLevel, from: old, to: new),
            changed("[agent] backoff_cap", \.backoffCap, from: old, to: new),
            changed("[agent] reconnect_spread", \.reconnectSpread, from: old, to: new),
            changed("[agent] session_keep", \.sessionKeep, from: old, to: new),
            changed("[agent] sleep", \.sleepMode, from: old, to: new),
            changed("[sip] password_file", \.sipPasswordFile, from: old, to: new),
            changed("[audio] source", \.audioSource, from: old, to: new),
            changed("[audio] sink", \.audioSink, from: old, to: new),
            changed("[audio] answer", \.answerMode, from: old, to: new),
            changed("[audio] voice processing", \.voiceProcessing, from: old, to: new),
            changed("[answer] rules", \.answerRules, from: old, to: new),
            changed("[media] addresses", \.mediaAddresses, from: old, to: new),
            changed("[media] stun", \.stunServer, from: old, to: new),
            changed("[media] turn", \.turnServer, from: old, to: new),
            changed("[media] turn_user", \.turnUser, from: old, to: new),
            changed("[media] turn_password", \.turnPassword, from: old, to: new),
            changed("[media] turn_transport", \.turnTransport, from: old, to: new),
            changed("[media] ice_transport_policy", \.iceTransportPolicy, from: old, to: new),
            changed("[media] include_candidates", \.includeCandidates, from: old, to: new),
            changed("[media] codecs", \.codecs, from: old, to: new),
        ].compactMap { $0 }
        // Settings this list does not name (added by later features) still take effect in place.
        let named = !(live.isEmpty && reconnect.isEmpty && relogin.isEmpty)
        if !named && effective != old { live.append("other settings") }
        self.live = live
    }

    /// Nothing to apply.
    public var isEmpty: Bool { live.isEmpty && reconnect.isEmpty && relogin.isEmpty }

    /// Whether a new session object is needed (a reconnect or a fresh login).
    public var needsNewSession: Bool { !reconnect.isEmpty || !relogin.isEmpty }

    /// One line for the log and `STATUS=`: which keys changed and how they apply.
    public var summary: String {
        var parts: [String] = []
        if !live.isEmpty { parts.append("applied: " + live.joined(separator: ", ")) }
        if !reconnect.isEmpty { parts.append("reconnecting by token for: " + reconnect.joined(separator: ", ")) }
        if !relogin.isEmpty { parts.append("new login for: " + relogin.joined(separator: ", ")) }
        if !needsRestart.isEmpty { parts.append("needs a restart (kept): " + needsRestart.joined(separator: ", ")) }
        return parts.isEmpty ? "no changes" : parts.joined(separator: "; ")
    }
}
