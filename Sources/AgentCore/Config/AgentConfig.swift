import MainLoop

/// The agent's effective configuration: defaults, then the config file, then command-line flags.
///
/// Build it with `ConfigLoader.load(arguments:environment:)`. `description` and `dump()` mask the
/// SIP password, so the value may be logged.
public struct AgentConfig: Sendable, Equatable {
    /// Default state directory when `$STATE_DIRECTORY` is not set.
    public static let defaultStateDirectory = "/var/lib/wcs-agent"
    /// Default control socket when `$RUNTIME_DIRECTORY` is not set.
    public static let defaultSocketPath = ClientCommands.defaultSocketPath

    /// WCS WebSocket URL (`ws://` or `wss://`): the first (primary) server of `[server] url`. Required.
    public var server: String
    /// The backup servers of `[server] url`, in priority order after `server` (see `ServerFailover`).
    public var fallbackServers: [String] = []
    /// Seconds the primary must answer probes, without a break, before the agent leaves a backup for
    /// it (`[server] failback_after`; 0 = stay on the backup until it fails). Never during a call.
    public var failbackAfter: Double = 300
    /// Seconds to wait for the SIP registration's answer after a login (`[sip] register_timeout`); no
    /// answer in time is a transient failure, retried.
    public var registerTimeout: Double = 15
    /// WCS application key sent in `connect`.
    public var appKey: String = "defaultApp"
    /// SIP login (user part); `nil` for a signaling-only session.
    public var sipLogin: String?
    /// SIP authentication name; `ConfigLoader` sets it to `sipLogin` when not configured.
    public var sipAuthName: String?
    /// The SIP password, read from `sipPasswordFile`; never from the command line.
    public var sipPassword: String?
    /// The file the SIP password was read from (`--sip-password-file`, `password_file` or the systemd credential).
    public var sipPasswordFile: String?
    /// SIP domain.
    public var sipDomain: String?
    /// SIP outbound proxy.
    public var sipOutboundProxy: String?
    /// SIP port.
    public var sipPort: Int?
    /// Whether to ask WCS to REGISTER with the SIP server.
    public var register: Bool = true
    /// Whether to use WCS keepAlive (server-side session survives a dropped WebSocket).
    public var keepAlive: Bool = true
    /// Directory for the token and other state (created 0700).
    public var stateDir: String = AgentConfig.defaultStateDirectory
    /// Path of the control socket.
    public var socketPath: String = AgentConfig.defaultSocketPath
    /// Group allowed to use the control socket (socket mode 0660); `nil` for owner-only (0600).
    public var socketGroup: String?
    /// CA bundle used to verify the server's TLS certificate; `nil` for the system store.
    public var caFile: String?
    /// Skip TLS certificate verification (testing only).
    public var insecureTLS: Bool = false
    /// Minimum log level.
    public var logLevel: LogLevel = .info
    /// How many missed WebSocket probes (pings) mean the connection is dead: 3 x 5 s notices a dead
    /// server within 15 s (the Web SDK's 10 x 5 s would leave a phone deaf for 50 s).
    public var receiveProbes: Int = 3
    /// Seconds between WebSocket probes.
    public var probesInterval: Double = 5.0
    /// Seconds within which the kernel notices a dead TCP path under the WebSocket (TCP user timeout
    /// and keepalive), pings or not; 0 keeps the kernel's defaults.
    public var tcpTimeout: Double = 15
    /// Watch the host's addresses, routes and links, and resume by token at once when the path to the
    /// server changes (netlink).
    public var watchNetwork: Bool = true
    /// Seconds allowed for connecting (TCP + TLS + WebSocket upgrade + WCS `connect`).
    public var connectTimeout: Double = 10
    /// Upper bound in seconds of the reconnect backoff.
    public var backoffCap: Double = 60
    /// W of the fleet's reconnect spread (`[agent] reconnect_spread`): after a loss the server
    /// caused, the first attempt waits a random time in [0, W) seconds. 0 suits a lone agent.
    public var reconnectSpread: Double = ReconnectSpread.defaultWindow
    /// How long the server keeps a detached session, in seconds (`[agent] session_keep`; WCS keeps one
    /// an hour by default). A sleeping agent resumes by token at a random moment in [0.7, 0.8] of it
    /// (`SessionKeepRefresh`), so the server never drops its session and registration.
    public var sessionKeep: Double = SessionKeepRefresh.defaultKeep
    /// When the agent sleeps on its own (`[agent] sleep`): never, or after some idle seconds.
    public var sleepMode: SleepMode = .never
    /// Outgoing audio of every call (`[audio] source`).
    public var audioSource: AudioSourceSpec = .silence
    /// Incoming audio of every call (`[audio] sink`).
    public var audioSink: AudioSinkSpec = .null
    /// When incoming calls are answered (`[audio] answer`).
    public var answerMode: AnswerMode = .manual
    /// Echo cancellation, noise suppression and gains (`[audio] echo_cancel` and the keys beside it).
    public var voiceProcessing = VoiceProcessingConfig()
    /// Per-caller answer rules (`[answer]`, `[answer.NAME]`); empty = `answerMode` for every call.
    public var answerRules = AnswerRuleSet()
    /// Addresses to gather ICE host candidates on (`[media] addresses`); empty = every interface.
    public var mediaAddresses: [String] = []
    /// STUN server `host:port` (`[media] stun`).
    public var stunServer: String?
    /// TURN server `host:port` (`[media] turn`), with `turnUser` and the password from `turnPasswordFile`.
    public var turnServer: String?
    /// TURN user name (`[media] turn_user`).
    public var turnUser: String?
    /// TURN password, read from `[media] turn_password_file`; never logged.
    public var turnPassword: String?
    /// TURN transport: udp, tcp or tls (`[media] turn_transport`).
    public var turnTransport: String = "udp"
    /// `all`, or `relay` to send media only through the TURN relay (`[media] ice_transport_policy`).
    public var iceTransportPolicy: String = "all"
    /// Put our ICE candidates in the SDP (`[media] include_candidates`; WCS also learns them from checks).
    public var includeCandidates: Bool = true
    /// Gather and advertise IPv6 link-local candidates (`[media] link_local`; off by default).
    public var mediaLinkLocal: Bool = false
    /// Codec preference (`[media] codecs`, e.g. `opus,pcmu,pcma`).
    public var codecs: [String] = ["opus", "pcmu", "pcma"]
    /// Calls held at once (`[calls] max_calls`, 1...`maxCallsLimit`); one more incoming call is
    /// declined as busy.
    public var maxCalls: Int = 2
    /// The highest `max_calls` accepted. All calls share one media clock thread (`make bench`
    /// measures 1 to 64 calls, Benchmarks/README.md); each call holds a few file descriptors and
    /// UDP ports, so 256 stays clear of the usual 1024-descriptor soft limit.
    public static let maxCallsLimit = 256
    /// The server's ring timeout in seconds (`[calls] ring_timeout`): an unanswered incoming call
    /// that ends after ringing this long (less 1 s) is recorded as no_answer, earlier as canceled.
    public var ringTimeout: Double = 30
    /// Command run when a call rings (`[hooks] on_incoming`); its output is the display name.
    public var hookOnIncoming: String?
    /// Command run when a call ends (`[hooks] on_call_end`).
    public var hookOnCallEnd: String?
    /// Seconds after which a hook is killed (`[hooks] timeout`).
    public var hookTimeout: Double = 5
    /// Where the push webhook listens (`[push] listen`); nil = no webhook.
    public var pushListen: PushListenAddress?
    /// The webhook's shared secret, read from `[push] secret_file`; never logged.
    public var pushSecret: String?
    /// The native MQTT push intake (`[push] mqtt` and the `mqtt_*` keys); nil = none.
    public var pushMQTT: MQTTPushSettings?
    /// Where the Prometheus metrics endpoint listens (`[metrics] listen`); nil = none.
    public var metricsListen: PushListenAddress?
    /// Door station: `[dtmf]`, `[actions]`, `[limits]`, `[announce]` (Actions/DoorStationConfig).
    public var door = DoorStationConfig()

    /// A configuration with every default and the given server URL.
    public init(server: String) {
        self.server = server
    }

    /// Every server in priority order: `server`, then `fallbackServers`.
    public var servers: [String] { [server] + fallbackServers }

    /// `sipAuthName`, or `sipLogin` when no separate auth name is set.
    public var effectiveSipAuthName: String? { sipAuthName ?? sipLogin }
}

extension AgentConfig: CustomStringConvertible, CustomReflectable {
    /// A one-line summary with the password masked.
    public var description: String {
        customMirror.children.map { "\($0.label ?? "?")=\(Self.unwrapped($0.value))" }.joined(separator: " ")
    }

    private static func unwrapped(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return "\(value)" }
        return mirror.children.first.map { "\($0.value)" } ?? "nil"
    }

    /// Mirror with the password replaced by `<set>`/`<unset>`, so `dump()` never shows it.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "server": server, "fallbackServers": fallbackServers, "failbackAfter": failbackAfter,
            "registerTimeout": registerTimeout, "appKey": appKey, "sipLogin": sipLogin as Any, "sipAuthName": sipAuthName as Any,
            "sipPassword": sipPassword == nil ? "<unset>" : "<set>", "sipPasswordFile": sipPasswordFile as Any,
            "sipDomain": sipDomain as Any, "sipOutboundProxy": sipOutboundProxy as Any, "sipPort": sipPort as Any,
            "register": register, "keepAlive": keepAlive, "stateDir": stateDir, "socketPath": socketPath,
            "socketGroup": socketGroup as Any, "caFile": caFile as Any, "insecureTLS": insecureTLS,
            "logLevel": logLevel, "receiveProbes": receiveProbes, "probesInterval": probesInterval, "tcpTimeout": tcpTimeout, "watchNetwork": watchNetwork,
            "connectTimeout": connectTimeout, "backoffCap": backoffCap, "reconnectSpread": reconnectSpread,
            "sessionKeep": sessionKeep, "sleepMode": sleepMode,
            "pushListen": pushListen as Any, "pushSecret": pushSecret == nil ? "<unset>" : "<set>",
            "pushMQTT": pushMQTT as Any, "metricsListen": metricsListen as Any,
        ], displayStyle: .struct)
    }
}
