import AudioPipe
import FoundationEssentials
import Glibc
import MainLoop
import WCSSession

/// Builds an `AgentConfig` from defaults, the environment, an optional config file and flags.
///
/// Precedence, lowest first: built-in defaults and systemd directories (`$STATE_DIRECTORY`,
/// `$RUNTIME_DIRECTORY`), the `--config` file, then command-line flags. The SIP password is read
/// from a file only: `--sip-password-file`, else `[sip] password_file`, else
/// `$CREDENTIALS_DIRECTORY/sip-password` (systemd `LoadCredential=`). See docs/config.md.
public enum ConfigLoader {
    /// The flags `load` understands (value flags, boolean flags, and the refused `--sip-password`).
    public static let spec = ArgumentSpec(
        valueFlags: [
            "--config", "--server", "--app-key", "--sip-login", "--sip-auth-name", "--sip-password-file",
            "--sip-domain", "--sip-outbound-proxy", "--sip-port", "--state-dir", "--socket", "--socket-group",
            "--ca-file", "--log-level", "--reconnect-spread", "--session-keep", "--sleep", "--audio-source", "--audio-sink", "--answer", "--media-address", "--stun",
        ],
        booleanFlags: ["--register", "--no-register", "--insecure-tls"],
        refusedFlags: ["--sip-password": passwordOnCommandLineExplanation])

    /// Sections and keys allowed in the config file. Later features add their sections here.
    public static let fileSchema: [String: Set<String>] = [
        "server": ["url", "app_key", "ca_file", "insecure_tls", "connect_timeout", "failback_after"],
        "sip": ["login", "auth_name", "password_file", "domain", "outbound_proxy", "port", "register", "register_timeout"],
        "agent": ["state_dir", "socket", "socket_group", "log_level", "keepalive", "receive_probes", "probes_interval", "backoff_cap",
                  "reconnect_spread", "tcp_timeout", "watch_network", "session_keep", "sleep"],
        "audio": ["source", "sink", "answer", "echo_cancel", "noise_suppression", "auto_gain", "mic_gain_db", "speaker_gain_db", "echo_engine"],
        "media": ["addresses", "stun", "turn", "turn_user", "turn_password_file", "turn_transport", "ice_transport_policy", "include_candidates", "link_local", "codecs"],
        "calls": ["max_calls", "ring_timeout"],
        "hooks": ["on_incoming", "on_call_end", "timeout"],
        "push": ["listen", "secret_file", "mqtt", "mqtt_ca_file", "mqtt_insecure_tls", "mqtt_username", "mqtt_password_file",
                 "mqtt_client_id", "mqtt_keepalive", "mqtt_availability_topic"],
        "metrics": ["listen"],
        "answer": AnswerRuleSet.keys,
    ]

    /// The name of the systemd credential holding the SIP password.
    public static let credentialName = "sip-password"

    static let passwordOnCommandLineExplanation =
        "command-line arguments are visible to every user (ps, /proc); put the password in a file and pass --sip-password-file FILE, or use the systemd credential $CREDENTIALS_DIRECTORY/sip-password (LoadCredential=sip-password:/path)"

    /// Parses `arguments` (the flags after the verb) and builds the configuration.
    /// Throws `UsageError` for command-line mistakes and `ConfigError` for bad values or files.
    public static func load(arguments: [String], environment: [String: String]) throws -> AgentConfig {
        let parsed = try ParsedArguments(arguments, spec: spec)
        if let extra = parsed.positional.first {
            throw UsageError("unexpected argument \"\(extra)\"")
        }
        return try load(parsed: parsed, environment: environment)
    }

    /// Builds the configuration from already parsed arguments (e.g. parsed with
    /// `spec.merging(verbSpec)` by a verb that has its own flags). Positional arguments are ignored.
    public static func load(parsed: ParsedArguments, environment: [String: String]) throws -> AgentConfig {
        var config = AgentConfig(server: "")
        applyEnvironmentDefaults(to: &config, environment: environment)
        var passwordFileFromFile: String?
        var mqttFile: ConfigFile?
        if let path = parsed.value("--config") {
            let file = try ConfigFile.load(path: path)
            try file.validate(schema: fileSchema.merging(AnswerRuleSet.ruleSchema(in: file)) { known, _ in known }
                .merging(DoorStationConfig.sectionKeys) { known, _ in known }
                .merging(DoorStationConfig.actionSchema(in: file)) { known, _ in known })
            try apply(file, to: &config)
            mqttFile = file
            passwordFileFromFile = try file.section("sip").path("password_file")
        }
        try apply(parsed, to: &config)
        if let mqttFile { try applyMQTT(mqttFile, to: &config, environment: environment) }  // its client id names the SIP login
        if config.sipAuthName == nil { config.sipAuthName = config.sipLogin }
        try loadPassword(into: &config, flagFile: parsed.value("--sip-password-file"),
                         configFile: passwordFileFromFile, environment: environment)
        try splitServerList(&config)
        try validate(config, configPath: parsed.value("--config"))
        return config
    }

    // MARK: - Sources

    static func applyEnvironmentDefaults(to config: inout AgentConfig, environment: [String: String]) {
        if let state = firstDirectory(environment["STATE_DIRECTORY"]) {
            config.stateDir = state
        }
        if let runtime = firstDirectory(environment["RUNTIME_DIRECTORY"]) {
            config.socketPath = PathName.joined(runtime, "control.sock")
        }
    }

    /// The first entry of a colon-separated systemd directory list.
    package static func firstDirectory(_ value: String?) -> String? {
        value?.split(separator: ":").first.map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    static func apply(_ file: ConfigFile, to config: inout AgentConfig) throws {
        let server = file.section("server")
        if let url = try server.nonEmptyString("url") { config.server = url }
        if let key = try server.nonEmptyString("app_key") { config.appKey = key }
        if let ca = try server.path("ca_file") { config.caFile = ca }
        if let insecure = try server.bool("insecure_tls") { config.insecureTLS = insecure }
        if let timeout = try server.seconds("connect_timeout", in: 0.1...3600) { config.connectTimeout = timeout }
        if let after = try server.seconds("failback_after", in: 0...86400) { config.failbackAfter = after }

        let sip = file.section("sip")
        if let login = try sip.nonEmptyString("login") { config.sipLogin = login }
        if let name = try sip.nonEmptyString("auth_name") { config.sipAuthName = name }
        if let domain = try sip.nonEmptyString("domain") { config.sipDomain = domain }
        if let proxy = try sip.nonEmptyString("outbound_proxy") { config.sipOutboundProxy = proxy }
        if let port = try sip.int("port", in: 1...65535) { config.sipPort = port }
        if let register = try sip.bool("register") { config.register = register }
        if let timeout = try sip.seconds("register_timeout", in: 0.1...600) { config.registerTimeout = timeout }

        let agent = file.section("agent")
        if let dir = try agent.path("state_dir") { config.stateDir = dir }
        if let socket = try agent.path("socket") { config.socketPath = socket }
        if let group = try agent.nonEmptyString("socket_group") { config.socketGroup = group }
        if let level = try agent.custom("log_level", expected: "debug, info, notice, warning or error", LogLevel.init(name:)) {
            config.logLevel = level
        }
        if let keepAlive = try agent.bool("keepalive") { config.keepAlive = keepAlive }
        if let probes = try agent.int("receive_probes", in: 0...1000) { config.receiveProbes = probes }
        if let interval = try agent.seconds("probes_interval", in: 0.1...3600) { config.probesInterval = interval }
        if let cap = try agent.seconds("backoff_cap", in: 1...86400) { config.backoffCap = cap }
        if let w = try agent.seconds("reconnect_spread", in: 0...ReconnectSpread.maximumWindow) { config.reconnectSpread = w }
        if let tcp = try agent.seconds("tcp_timeout", in: 0...3600) { config.tcpTimeout = tcp }
        if let watch = try agent.bool("watch_network") { config.watchNetwork = watch }
        if let keep = try agent.seconds("session_keep", in: SessionKeepRefresh.keepRange) { config.sessionKeep = keep }
        if let v = try agent.nonEmptyString("sleep") { config.sleepMode = try located(file, "agent", "sleep") { try SleepMode(parsing: v) } }

        let audio = file.section("audio")
        if let v = try audio.nonEmptyString("source") { config.audioSource = try located(file, "audio", "source") { try AudioSourceSpec(parsing: v) } }
        if let v = try audio.nonEmptyString("sink") { config.audioSink = try located(file, "audio", "sink") { try AudioSinkSpec(parsing: v) } }
        if let v = try audio.nonEmptyString("answer") { config.answerMode = try located(file, "audio", "answer") { try AnswerMode(parsing: v) } }
        let switches = "auto, on or off"
        if let v = try audio.custom("echo_cancel", expected: switches, { VoiceProcessingConfig.Switch(rawValue: $0.lowercased()) }) {
            config.voiceProcessing.echoCancel = v
        }
        if let v = try audio.custom("noise_suppression", expected: switches, { VoiceProcessingConfig.Switch(rawValue: $0.lowercased()) }) {
            config.voiceProcessing.noiseSuppression = v
        }
        if let v = try audio.bool("auto_gain") { config.voiceProcessing.autoGain = v }
        let gains = "decibels from -30 to 30"
        let gain = { (text: String) in Double(text).flatMap { VoiceProcessingConfig.gainRange.contains($0) ? $0 : nil } }
        if let v = try audio.custom("mic_gain_db", expected: gains, gain) { config.voiceProcessing.micGainDb = v }
        if let v = try audio.custom("speaker_gain_db", expected: gains, gain) { config.voiceProcessing.speakerGainDb = v }
        if let v = try audio.custom("echo_engine", expected: "webrtc or speex", { VoiceProcessingSettings.Engine(rawValue: $0.lowercased()) }) {
            config.voiceProcessing.engine = v
        }

        let media = file.section("media")
        if let v = try media.nonEmptyString("addresses") { config.mediaAddresses = list(v) }
        if let v = try media.nonEmptyString("stun") { config.stunServer = v }
        if let v = try media.nonEmptyString("turn") { config.turnServer = v }
        if let v = try media.nonEmptyString("turn_user") { config.turnUser = v }
        if let v = try media.path("turn_password_file") { config.turnPassword = try readSecret(path: v, what: "TURN password file") }
        if let v = try media.nonEmptyString("turn_transport") {
            guard ["udp", "tcp", "tls"].contains(v.lowercased()) else {
                throw ConfigError("invalid turn_transport \"\(v)\" in [media]: expected udp, tcp or tls")
            }
            config.turnTransport = v.lowercased()
        }
        if let v = try media.nonEmptyString("ice_transport_policy") {
            guard ["all", "relay"].contains(v.lowercased()) else {
                throw ConfigError("invalid ice_transport_policy \"\(v)\" in [media]: expected all or relay")
            }
            config.iceTransportPolicy = v.lowercased()
        }
        if let v = try media.bool("include_candidates") { config.includeCandidates = v }
        if let v = try media.bool("link_local") { config.mediaLinkLocal = v }
        if let v = try media.nonEmptyString("codecs") { config.codecs = list(v).map { $0.lowercased() } }

        let calls = file.section("calls")
        if let v = try calls.int("max_calls", in: 1...AgentConfig.maxCallsLimit) { config.maxCalls = v }
        if let v = try calls.seconds("ring_timeout", in: 1...3600) { config.ringTimeout = v }

        let hooks = file.section("hooks")
        if let v = try hooks.nonEmptyString("on_incoming") { config.hookOnIncoming = v }
        if let v = try hooks.nonEmptyString("on_call_end") { config.hookOnCallEnd = v }
        if let v = try hooks.seconds("timeout", in: 0.1...600) { config.hookTimeout = v }
        let push = file.section("push")
        if let v = try push.nonEmptyString("listen") { config.pushListen = try located(file, "push", "listen") { try PushListenAddress(parsing: v) } }
        if let v = try push.path("secret_file") { config.pushSecret = try readSecret(path: v, what: "push secret file") }
        config.answerRules = try AnswerRuleSet.load(from: file)
        config.door = try DoorStationConfig.load(from: file)
        if let v = try file.section("metrics").nonEmptyString("listen") {
            config.metricsListen = try located(file, "metrics", "listen") { try MetricsListenAddress.parse(v) }
        }
    }

    /// `[push] mqtt` and its `mqtt_*` keys (the password from its file only).
    static func applyMQTT(_ file: ConfigFile, to config: inout AgentConfig, environment: [String: String]) throws {
        let push = file.section("push")
        guard let url = try push.nonEmptyString("mqtt") else {
            for key in ConfigLoader.fileSchema["push", default: []] where key.hasPrefix("mqtt_") {
                guard let entry = push.entry(key) else { continue }
                throw ConfigError.at(file.path, line: entry.line, "\(key) in [push] needs mqtt = mqtt://HOST[:PORT]/TOPIC")
            }
            return
        }
        let line = environment["WCS_AGENT_LINE"].flatMap { $0.isEmpty ? nil : $0 } ?? config.sipLogin
        let clientId = try push.nonEmptyString("mqtt_client_id")
            ?? MQTTPushSettings.defaultClientId(line: line, hostName: MQTTPushSettings.hostName())
        var mqtt = try located(file, "push", "mqtt") { try MQTTPushSettings(parsing: url, clientId: clientId) }
        if let ca = try push.path("mqtt_ca_file") {
            try validateCAFile(ca)
            mqtt.caFile = ca
        }
        if let insecure = try push.bool("mqtt_insecure_tls") { mqtt.insecureTLS = insecure }
        mqtt.username = try push.nonEmptyString("mqtt_username")
        if let path = try push.path("mqtt_password_file") {
            guard mqtt.username != nil else { throw ConfigError("[push] mqtt_password_file needs mqtt_username") }
            mqtt.password = try readSecret(path: path, what: "MQTT password file")
        }
        if let keepAlive = try push.int("mqtt_keepalive", in: 5...3600) { mqtt.keepAlive = keepAlive }
        if let topic = try push.nonEmptyString("mqtt_availability_topic") {
            try located(file, "push", "mqtt_availability_topic") { try MQTTPushSettings.validateTopic(topic, what: "mqtt_availability_topic") }
            mqtt.availabilityTopic = topic
        }
        if (mqtt.caFile != nil || mqtt.insecureTLS) && !mqtt.tls {
            throw ConfigError("[push] mqtt_ca_file and mqtt_insecure_tls need an mqtts:// URL")
        }
        config.pushMQTT = mqtt
    }

    /// Comma- or blank-separated list.
    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Prefixes a value error with the file, line and key it came from.
    static func located<T>(_ file: ConfigFile, _ section: String, _ key: String, _ parse: () throws -> T) throws -> T {
        do { return try parse() } catch {
            let line = file.entries.first { $0.section == section && $0.key == key }?.line ?? 0
            throw ConfigError.at(file.path, line: line, "\(error)")
        }
    }

    static func apply(_ parsed: ParsedArguments, to config: inout AgentConfig) throws {
        func text(_ flag: String) throws -> String? {
            guard let value = parsed.value(flag) else { return nil }
            guard !value.isEmpty else { throw UsageError("\(flag) needs a non-empty value") }
            return value
        }
        if let v = try text("--server") { config.server = v }
        if let v = try text("--app-key") { config.appKey = v }
        if let v = try text("--sip-login") { config.sipLogin = v }
        if let v = try text("--sip-auth-name") { config.sipAuthName = v }
        if let v = try text("--sip-domain") { config.sipDomain = v }
        if let v = try text("--sip-outbound-proxy") { config.sipOutboundProxy = v }
        if let v = try text("--sip-port") {
            guard let port = ConfigValue.port(v) else { throw ConfigError("--sip-port: invalid port \"\(v)\" (expected 1...65535)") }
            config.sipPort = port
        }
        if let last = parsed.lastFlag(among: ["--register", "--no-register"]) { config.register = last == "--register" }
        if let v = try text("--state-dir") { config.stateDir = v }
        if let v = try text("--socket") { config.socketPath = v }
        if let v = try text("--socket-group") { config.socketGroup = v }
        if let v = try text("--ca-file") { config.caFile = v }
        if parsed.has("--insecure-tls") { config.insecureTLS = true }
        if let v = try text("--audio-source") { config.audioSource = try AudioSourceSpec(parsing: v) }
        if let v = try text("--audio-sink") { config.audioSink = try AudioSinkSpec(parsing: v) }
        if let v = try text("--answer") { config.answerMode = try AnswerMode(parsing: v) }
        let addresses = parsed.values("--media-address").flatMap(list)
        if !addresses.isEmpty { config.mediaAddresses = addresses }
        if let v = try text("--stun") { config.stunServer = v }
        if let v = try text("--reconnect-spread") {
            guard let w = ConfigValue.seconds(v), (0...ReconnectSpread.maximumWindow).contains(w) else {
                throw ConfigError("--reconnect-spread: invalid value \"\(v)\" (expected seconds, 0-\(Int(ReconnectSpread.maximumWindow)))")
            }
            config.reconnectSpread = w
        }
        if let v = try text("--session-keep") {
            guard let keep = ConfigValue.seconds(v), SessionKeepRefresh.keepRange.contains(keep) else {
                throw ConfigError("--session-keep: invalid value \"\(v)\" (expected seconds, \(ConfigValue.format(SessionKeepRefresh.keepRange)))")
            }
            config.sessionKeep = keep
        }
        if let v = try text("--sleep") { config.sleepMode = try SleepMode(parsing: v) }
        if let v = try text("--log-level") {
            guard let level = LogLevel(name: v) else {
                throw ConfigError("--log-level: invalid level \"\(v)\" (expected debug, info, notice, warning or error)")
            }
            config.logLevel = level
        }
    }

    // MARK: - Password

    static func loadPassword(into config: inout AgentConfig, flagFile: String?, configFile: String?,
                             environment: [String: String]) throws {
        let path: String
        if let file = flagFile ?? configFile {
            path = file
        } else if let credentials = firstDirectory(environment["CREDENTIALS_DIRECTORY"]) {
            let candidate = PathName.joined(credentials, credentialName)
            // An absent credential is fine (no password configured); an unreadable one is not.
            guard access(candidate, F_OK) == 0 else { return }
            path = candidate
        } else {
            return
        }
        config.sipPassword = try readSecret(path: path, what: "SIP password file")
        config.sipPasswordFile = path
    }

    /// Reads a one-line secret file: trailing CR/LF removed, empty is an error. Errors name the
    /// file, never its content. The secret is not registered with `SecretRedactor`: it is never
    /// formatted into log text, and masking a human-chosen word would reveal it.
    public static func readSecret(path: String, what: String) throws -> String {
        let data: Data
        do {
            data = try FileReading.readAll(path: path, limit: 64 * 1024)
        } catch {
            throw ConfigError("cannot read \(what) \(path): \(error.reason)")
        }
        guard var secret = String(data: data, encoding: .utf8) else {
            throw ConfigError("\(what) \(path) is not valid UTF-8")
        }
        while secret.last?.isNewline == true { secret.removeLast() }
        guard !secret.isEmpty else { throw ConfigError("\(what) \(path) is empty") }
        return secret
    }

    // MARK: - Validation

    /// A CA file must be readable and hold a PEM certificate; otherwise every connection attempt would
    /// fail the same way, so it is a configuration error at start, not a retried connection error.
    static func validateCAFile(_ path: String) throws {
        let data: Data
        do {
            data = try FileReading.readAll(path: path, limit: 16 << 20)
        } catch {
            throw ConfigError("cannot read CA file \(path): \(error.reason)")
        }
        guard data.firstRange(of: Array("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw ConfigError("CA file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }

    /// `[server] url` (or `--server`) may list several URLs, separated by commas or spaces, in priority
    /// order: the first is `server`, the rest `fallbackServers`. The same URL twice is an error.
    static func splitServerList(_ config: inout AgentConfig) throws {
        let urls = list(config.server)
        guard let first = urls.first else { return }
        var seen = Set<String>()
        for url in urls where !seen.insert(url).inserted {
            throw ConfigError("[server] url lists \"\(url)\" twice")
        }
        for url in urls where (try? WebSocketEndpoint(parsing: url)) == nil {
            throw ConfigError("invalid server URL \"\(url)\": expected ws://host[:port][/path] or wss://...")
        }
        config.server = first
        config.fallbackServers = Array(urls.dropFirst())
    }

    static func validate(_ config: AgentConfig, configPath: String?) throws {
        guard !config.server.isEmpty else {
            let fileHint = configPath.map { "set url in [server] of \($0) or " } ?? ""
            throw ConfigError("missing server: \(fileHint)pass --server ws://host:8080 (or wss://)")
        }
        guard (try? WebSocketEndpoint(parsing: config.server)) != nil else {
            throw ConfigError("invalid server URL \"\(config.server)\": expected ws://host[:port][/path] or wss://...")
        }
        if let ca = config.caFile { try validateCAFile(ca) }
        if config.pushListen != nil && config.pushSecret == nil {
            throw ConfigError("[push] listen needs secret_file (the shared secret of the \(PushWebhookServer.secretHeader) header)")
        }
        if config.turnServer != nil && (config.turnUser == nil || config.turnPassword == nil) {
            throw ConfigError("[media] turn needs turn_user and turn_password_file")
        }
        if config.iceTransportPolicy == "relay" && config.turnServer == nil {
            throw ConfigError("[media] ice_transport_policy = relay needs a turn server")
        }
        for codec in config.codecs where !["opus", "pcmu", "pcma"].contains(codec) {
            throw ConfigError("unknown codec \"\(codec)\" in [media] codecs: expected opus, pcmu or pcma")
        }
        if config.sleepMode != .never && !config.keepAlive {
            throw ConfigError("[agent] sleep = \(config.sleepMode) needs keepalive (the server would drop the session of a sleeping agent)")
        }
        if config.register && config.sipLogin == nil && (config.sipDomain != nil || config.sipPassword != nil) {
            throw ConfigError("SIP settings given without a SIP login: set login in [sip] or pass --sip-login")
        }
    }
}
