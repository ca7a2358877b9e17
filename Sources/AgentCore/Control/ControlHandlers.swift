import WCSSession

/// The daemon's verb table: one `ControlHandler` per verb of `ControlVerbs.all` (AgentControl), in
/// the same order. Adding a verb means its `ControlVerb` in AgentControl and its handler here;
/// ControlVerbTableTests checks that both tables name the same verbs. Values only.
enum ControlHandlers {
    /// Every handler.
    static let all: [ControlHandler] = [
        hello, status, reconnect, sleep, reload,
        call(ControlVerbs.answer) { try await $0.answer($1) }, call(ControlVerbs.decline) { try await $0.decline($1) },
        call(ControlVerbs.hangup) { try await $0.hangup($1) }, dial,
        call(ControlVerbs.hold) { try await $0.hold($1) }, call(ControlVerbs.resume) { try await $0.resume($1) },
        mute(ControlVerbs.mute, true), mute(ControlVerbs.unmute, false), dtmf, transfer, calls, metrics,
    ]

    /// The handlers by verb name.
    static let byName: [String: ControlHandler] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Answered on the loop by the control server itself (`ControlServer.HelloResponder`), so a
    /// client that sends `hello` and its request in one write never has a refused hello's request run.
    static let hello = ControlHandler(now: ControlVerbs.hello) { args, context in
        guard args.protocolVersion == context.protocolVersion else {
            throw ControlFailure(.protocolMismatch,
                "this wcs-agent daemon (\(AgentCore.version)) speaks control protocol \(context.protocolVersion); the client "
                + "speaks \(args.protocolVersion): use the wcs-agent binary that matches the daemon, or restart the daemon after an upgrade")
        }
        return HelloResult(protocolVersion: context.protocolVersion, version: AgentCore.version)
    }

    static let status = ControlHandler(ControlVerbs.status) { _, context in try await ControlVerbs.statusOf(context.agent) }

    static let reconnect = ControlHandler(ControlVerbs.reconnect) { args, context in
        let agent = context.agent
        guard let push = args.push else {
            let outcome = await agent.wake(reason: "reconnect request")
            return ReconnectResult(status: try await ControlVerbs.statusOf(agent), outcome: outcome.rawValue)
        }
        return try await PushIntake.reconnect(push, agent: agent)
    }

    static let sleep = ControlHandler(ControlVerbs.sleep) { _, context in
        do {
            try await context.agent.sleep()
        } catch {
            throw ControlFailure(.cannotSleep, "\(error)")
        }
        return try await ControlVerbs.statusOf(context.agent)
    }

    static let reload = ControlHandler(ControlVerbs.reload) { _, context in
        guard let reloader = context.reloader else { throw ControlFailure(.reloadFailed, "this daemon cannot reload") }
        do {
            return ReloadResult(try await reloader.reload())
        } catch {
            throw ControlFailure(.reloadFailed, "\(error); the running configuration stays")
        }
    }

    static let metrics = ControlHandler(ControlVerbs.metrics) { _, context in
        guard let collector = context.metrics else { throw ControlFailure(.internalError, "metrics: this daemon keeps no metrics") }
        return MetricsResult(text: try await AgentMetrics.scrape(context.agent, collector: collector))
    }
}

extension ControlVerbs {
    /// The `status` result of `agent`.
    static func statusOf(_ agent: Agent) async throws -> StatusResult {
        await agent.status()
    }
}

extension ReloadResult {
    /// What `plan` applied, as the `reload` verb answers it.
    init(_ plan: ConfigReloadPlan) {
        self.init(summary: plan.summary, applied: plan.live, reconnect: plan.reconnect, relogin: plan.relogin,
                  needsRestart: plan.needsRestart, reconnected: plan.needsNewSession)
    }
}
