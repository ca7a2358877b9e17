import FoundationEssentials
import Glibc
import MainLoop
import WCSSession

/// `wcs-agent run`: the foreground daemon systemd starts.
package enum DaemonCommand {
    package static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("usage: wcs-agent run [--config FILE] [--server URL] [--app-key KEY] [--sip-login LOGIN]\n"
                + "  [--sip-auth-name NAME] [--sip-password-file FILE] [--sip-domain DOMAIN] [--sip-outbound-proxy HOST]\n"
                + "  [--sip-port PORT] [--register|--no-register] [--state-dir DIR] [--socket PATH] [--socket-group GROUP]\n"
                + "  [--ca-file PEM] [--insecure-tls] [--log-level debug|info|notice|warning|error]\n"
                + "  [--reconnect-spread SECONDS]\n"
                + "  [--audio-source file:PATH|tone:HZ|silence|pipe:PATH|command:CMD]\n"
                + "  [--audio-sink record:DIR|pipe:PATH|command:CMD|null] [--answer manual|auto|after:SECONDS]\n"
                + "  [--media-address ADDR]... [--stun HOST:PORT]\n"
                + "Hooks, push webhook and MQTT intake, TURN and call limits are set in the config file.\n"
                + "The SIP password is never taken from the command line: use --sip-password-file or\n"
                + "$CREDENTIALS_DIRECTORY/sip-password. See docs/config.md.\n"
                + "Exit status 2: bad usage; 78: configuration error (unreadable or invalid config, CA or password file).")
            return ExitCode.ok.rawValue
        }
        let environment = ProcessInfo.processInfo.environment
        let config: AgentConfig
        do {
            config = try ConfigLoader.load(arguments: arguments, environment: environment)
        } catch let error as UsageError {
            ClientCommands.printError("wcs-agent run: \(error)")
            return ExitCode.usage.rawValue
        } catch {
            ClientCommands.printError("wcs-agent run: configuration error: \(error)")
            return ExitCode.configError.rawValue
        }
        AgentLogger.install(level: config.logLevel, environment: environment)

        let notifier = SystemdNotifier(environment: environment)
        let broadcaster = EventBroadcaster()
        let metrics = MetricsCollector()
        let pushLedger = PushLedger(directory: config.stateDir)
        let makeAgent: DaemonReloader.AgentFactory = { config in
            Agent(config: config, tokenStore: TokenStore(directory: config.stateDir), notifier: notifier, pushLedger: pushLedger) { event in
                metrics.observe(json: event)
                broadcaster.send(event)
            }
        }
        let host = AgentHost(makeAgent(config))
        let reloader = DaemonReloader(arguments: arguments, environment: environment, running: config,
                                      host: host, notifier: notifier, makeAgent: makeAgent)
        let server: ControlServer
        let protocolVersion = ControlProtocolVersion.effective(environment: environment)
        do {
            let context = { @Sendable (request: ControlRequest) in
                ControlContext(host: host, reloader: reloader, protocolVersion: protocolVersion, peer: request.peer, metrics: metrics)
            }
            server = try ControlServer(path: config.socketPath, group: config.socketGroup,
                                       hello: { request in ControlDispatcher.hello(request, context: context(request)) }) { request in
                await ControlDispatcher.handle(request, context: context(request))
            }
        } catch {
            Log.error("agent", "control socket \(config.socketPath): \(error)")
            return ExitCode.failure.rawValue
        }
        broadcaster.attach(server)
        var webhook: PushWebhookServer?
        if let listen = config.pushListen, let secret = config.pushSecret {
            do {
                webhook = try PushWebhookServer(address: listen, secret: secret) { payload in
                    await PushIntake.webhook(payload, agent: host.current)
                }
            } catch {
                Log.error("push", "push webhook \(listen): \(error)")
                server.close()
                return ExitCode.failure.rawValue
            }
        }
        var metricsServer: MetricsHTTPServer?
        if let listen = config.metricsListen {
            do {
                metricsServer = try MetricsHTTPServer(address: listen) {
                    (try? await AgentMetrics.scrape(host.current, collector: metrics)) ?? "# the agent did not answer\n"
                }
            } catch {
                Log.error("metrics", "metrics endpoint \(listen): \(error)")
                webhook?.close()
                server.close()
                return ExitCode.failure.rawValue
            }
        }
        Log.notice("agent", "wcs-agent \(AgentCore.version) starting; server \(config.server), control socket \(config.socketPath)")
        let signals = SignalHandling.signals()
        await host.current.start()
        let takenPushes = TakenPushDelivery(host: host)
        takenPushes.resumePending(pushLedger)
        var mqtt: MQTTPushIntake?
        if let settings = config.pushMQTT {
            do {
                mqtt = try await MQTTPushIntake(settings: settings, host: host, delivery: takenPushes)
            } catch {
                // Calls still ring while the session is up: run on, loudly, rather than not at all.
                Log.error("push", "\(error); running WITHOUT the MQTT intake: pushes wait on the broker until it works")
                await host.current.publishEvent(.pushIntake(source: PushSource.mqtt.rawValue, state: "disconnected", error: "\(error)"))
            }
        }
        // Network changes go to whichever agent is in charge (a reload may replace it).
        let networkMonitor: NetworkChangeMonitor?
        do {
            networkMonitor = try NetworkChangeMonitor { change in Task { await host.current.networkChanged(change) } }
        } catch {
            Log.warning("agent", "cannot watch network changes (\(error)); a changed path is noticed by the probes only")
            networkMonitor = nil
        }
        // WATCHDOG=1 only while both the main loop ticks and the agent actor answers.
        let watchdog = WatchdogPinger(notifier: notifier) { await host.current.heartbeat() }
        for await signal in signals {
            if signal == SIGHUP {
                Log.notice("agent", "SIGHUP: reloading the configuration")
                _ = try? await reloader.reload()  // a refused file is logged and reported to systemd
                continue
            }
            let keeps = await reloader.running.keepAlive ? "the server keeps the session" : "keepalive is off: the server ends the session"
            Log.notice("agent", "signal \(signal): shutting down (\(keeps))")
            break
        }
        watchdog?.stop()
        webhook?.close()
        await mqtt?.close()
        await takenPushes.drain(within: 2)
        networkMonitor?.close()
        metricsServer?.close()
        await host.current.shutdown()
        server.close()
        Log.notice("agent", "stopped")
        return ExitCode.ok.rawValue
    }
}
