import FoundationEssentials
import MainLoop

/// Applies SIGHUP and the `reload` verb: re-reads the config file and the flags given at start, and
/// applies the differences as `ConfigReloadPlan` describes. A configuration that does not load is
/// logged and the running one stays. Tells systemd `RELOADING=1`, then `READY=1` with a status line.
/// An actor so that a signal and a socket request never apply two plans over each other's state.
public actor DaemonReloader {
    /// Builds a fresh agent for a configuration (used when the server or account changed).
    public typealias AgentFactory = @Sendable (AgentConfig) -> Agent

    private let arguments: [String]
    private let environment: [String: String]
    private let host: AgentHost
    private let notifier: SystemdNotifier
    private let makeAgent: AgentFactory
    /// The configuration in effect.
    public private(set) var running: AgentConfig

    /// - Parameters:
    ///   - arguments: the `run` flags given at start (re-parsed on every reload, `--config` included).
    ///   - running: the configuration the daemon started with.
    public init(arguments: [String], environment: [String: String], running: AgentConfig,
                host: AgentHost, notifier: SystemdNotifier, makeAgent: @escaping AgentFactory) {
        self.arguments = arguments
        self.environment = environment
        self.running = running
        self.host = host
        self.notifier = notifier
        self.makeAgent = makeAgent
    }

    /// Reloads once. Returns the plan that was applied; throws the loader's error (`UsageError`,
    /// `ConfigError`...) when the new configuration was refused, the running one staying in effect.
    @discardableResult
    public func reload() async throws -> ConfigReloadPlan {
        notifier.reloading()
        let before = notifier.lastStatus
        let loaded: AgentConfig
        do {
            loaded = try ConfigLoader.load(arguments: arguments, environment: environment)
        } catch {
            Log.error("agent", "reload failed: \(error); still running with the previous configuration")
            notifier.ready(status: "reload failed, previous configuration kept: \(error)")
            throw error
        }
        let plan = ConfigReloadPlan(running: running, loaded: loaded)
        running = plan.effective
        if plan.live.contains("[agent] log_level") {
            AgentLogger.install(level: plan.effective.logLevel, environment: environment)
        }
        for key in plan.needsRestart {
            Log.warning("agent", "reload: \(key) changed; it takes effect at the next restart")
        }
        if plan.needsNewSession {
            await replaceAgent(plan)
        } else if !plan.isEmpty {
            await host.current.applyLive(plan.effective)
        }
        Log.notice("agent", "configuration reloaded: \(plan.summary)")
        let now = plan.needsNewSession ? notifier.lastStatus : before
        notifier.ready(status: (now.map { $0 + "; " } ?? "") + "reloaded (\(plan.summary))")
        return plan
    }

    /// Retires the running agent (its calls are hung up, its socket closed) and starts a new one.
    /// For an account change the stored token is dropped first, so the new agent logs in afresh;
    /// for connection settings only, it resumes the same server session by token.
    private func replaceAgent(_ plan: ConfigReloadPlan) async {
        let old = host.current
        await old.retire()
        if !plan.relogin.isEmpty {
            let store = TokenStore(directory: plan.effective.stateDir)
            do {
                try store.clear()
            } catch {
                Log.error("agent", "reload: cannot remove the old session token: \(error)")
            }
            Log.notice("agent", "reload: \(plan.relogin.joined(separator: ", ")) changed; logging in again "
                + "(the old server session lapses after the server's keepAlive timeout)")
        } else {
            Log.notice("agent", "reload: \(plan.reconnect.joined(separator: ", ")) changed; reconnecting and resuming by token")
        }
        let agent = makeAgent(plan.effective)
        host.replace(with: agent)
        await agent.start()
    }
}
