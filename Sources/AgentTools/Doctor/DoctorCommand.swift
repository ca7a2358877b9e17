import AgentCore
import FoundationEssentials

/// `wcs-agent doctor`: checks what a line needs, one verdict per line, and exits 1 when any
/// check failed (0 otherwise; warnings do not fail). It reads the configuration exactly as
/// `wcs-agent run` would (same flags, `--line NAME` for /etc/wcs-agent/NAME.conf, else
/// /etc/wcs-agent/wcs-agent.conf when it exists), needs no running daemon, and never logs in.
///
/// Runs in the CLI process on its main task; network checks have `--timeout` seconds each.
enum DoctorCommand {
    static let defaultConfig = "/etc/wcs-agent/wcs-agent.conf"

    static let usage = "[--line NAME | --config FILE] [run flags] [--timeout S]"
    static let summary = "check config, credentials, DNS + TLS to the server (and the CA),\nthe MQTT push broker,\nlibnice, STUN/TURN, audio devices and the state dir; exit 1 on a failure"

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("usage: wcs-agent doctor \(usage)\n\n\(summary)")
            return ExitCode.ok.rawValue
        }
        var args = arguments
        var timeout = 5.0
        if let i = args.firstIndex(of: "--timeout") {
            guard i + 1 < args.count, let seconds = Double(args[i + 1]), seconds > 0 else {
                CLI.printError("wcs-agent doctor: --timeout needs seconds")
                return ExitCode.usage.rawValue
            }
            timeout = seconds
            args.removeSubrange(i...(i + 1))
        }
        if let i = args.firstIndex(of: "--line") {
            guard i + 1 < args.count, let line = try? AgentLine(args[i + 1]) else {
                CLI.printError("wcs-agent doctor: --line needs a line name (letters, digits, . _ - @)")
                return ExitCode.usage.rawValue
            }
            args.removeSubrange(i...(i + 1))
            if !args.contains("--config") { args += ["--config", line.configPath] }
            if !args.contains("--state-dir") { args += ["--state-dir", line.stateDirectory] }
            args = withUnitCredential(args, "/etc/wcs-agent/\(line.name).sip-password")
        } else if !args.contains("--config"), !args.contains("--server"), FileManager.default.fileExists(atPath: defaultConfig) {
            args = withUnitCredential(args + ["--config", defaultConfig], "/etc/wcs-agent/sip-password")
        }

        var verdicts: [DoctorVerdict] = []
        func say(_ new: [DoctorVerdict]) {
            for verdict in new { print(verdict.line) }
            verdicts += new
        }
        let config: AgentConfig
        do {
            config = try ConfigLoader.load(arguments: args, environment: ProcessInfo.processInfo.environment)
            let file = args.firstIndex(of: "--config").map { args[$0 + 1] }
            say([.ok("config", "\(file ?? "command line") loads; server \(config.server.isEmpty ? "(none)" : config.server)")])
        } catch {
            say([.failure("config", "\(error)")])
            return finish(verdicts)
        }
        guard !config.server.isEmpty else {
            say([.failure("config", "no server: set [server] url or --server")])
            return finish(verdicts)
        }
        say(DoctorLocalChecks.credentials(config))
        let dns = DoctorNetworkChecks.dns(config)
        say([dns])
        if dns.level != .failure { say(await DoctorNetworkChecks.server(config, timeout: timeout)) }
        if let mqtt = config.pushMQTT {
            // The push intake's broker, under its own client id (the line's session is left alone).
            let security = !mqtt.tls ? "no TLS (mqtt://)" : mqtt.insecureTLS ? "TLS NOT verified (mqtt_insecure_tls)" : "TLS verified"
            let failure = await MQTTBrokerProbe.check(mqtt, timeout: timeout)
            say([failure.map { .failure("mqtt", "\(mqtt.broker): \($0)") }
                 ?? .ok("mqtt", "\(mqtt.broker): connected (as \(mqtt.clientId)-doctor); \(security); pushes on \(mqtt.topic)")])
        }
        say([DoctorLibraryChecks.libnice()])
        say([DoctorNetworkChecks.stun(config, timeout: timeout)])
        if let turn = DoctorNetworkChecks.turn(config, timeout: timeout) { say([turn]) }
        say(DoctorLocalChecks.audio(config))
        say(DoctorLocalChecks.stateDirectory(config))
        return finish(verdicts)
    }

    /// The units hand the SIP password over as a credential (`LoadCredential=` from `file`); run
    /// by hand the doctor reads that file instead, unless a password file is given otherwise.
    private static func withUnitCredential(_ args: [String], _ file: String) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        guard !args.contains("--sip-password-file"), environment["CREDENTIALS_DIRECTORY"] == nil,
              FileManager.default.fileExists(atPath: file) else { return args }
        return args + ["--sip-password-file", file]
    }

    private static func finish(_ verdicts: [DoctorVerdict]) -> Int32 {
        let failures = verdicts.filter { $0.level == .failure }.count
        let warnings = verdicts.filter { $0.level == .warning }.count
        print("doctor: \(verdicts.count) checks, \(warnings) warning\(warnings == 1 ? "" : "s"), \(failures) failure\(failures == 1 ? "" : "s")")
        return failures == 0 ? ExitCode.ok.rawValue : ExitCode.failure.rawValue
    }
}
