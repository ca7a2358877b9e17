import WCSJSON

/// The verb table: every request the daemon answers, in the order `wcs-agent --help` lists them.
/// Adding a verb means one `ControlVerb` here (or in ControlVerbs+Calls.swift), its name in `names`
/// and its case in `named(_:)`, and its handler in AgentCore's `ControlHandlers`. Values only;
/// nothing here runs until the CLI or the dispatcher calls it.
public enum ControlVerbs {
    /// Every verb's name, in table order: plain strings, so a caller that needs one verb (the lean
    /// front routing a command line) does not build the whole table.
    public static let names = [
        "hello", "status", "reconnect", "sleep", "reload", "answer", "decline", "hangup", "call", "hold", "resume", "mute",
        "unmute", "dtmf", "transfer", "calls", "metrics",
    ]

    /// Every verb, as the CLI sees them (the daemon's `ControlHandlers` has one handler for each).
    public static let all: [AnyControlVerb] = names.compactMap(named)

    /// The verbs by name.
    public static let byName: [String: AnyControlVerb] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The verb called `name`, built alone (nil for an unknown name). Each `ControlVerb` is a generic
    /// value whose type metadata the runtime instantiates on first use: building `all` to route one
    /// command line cost the front about a tenth of its start (issue 9), so the front asks here.
    public static func named(_ name: String) -> AnyControlVerb? {
        switch name {
        case "hello": AnyControlVerb(hello)
        case "status": AnyControlVerb(status)
        case "reconnect": AnyControlVerb(reconnect)
        case "sleep": AnyControlVerb(Self.sleep)
        case "reload": AnyControlVerb(reload)
        case "answer": AnyControlVerb(answer)
        case "decline": AnyControlVerb(decline)
        case "hangup": AnyControlVerb(hangup)
        case "call": AnyControlVerb(call)
        case "hold": AnyControlVerb(hold)
        case "resume": AnyControlVerb(resume)
        case "mute": AnyControlVerb(mute)
        case "unmute": AnyControlVerb(unmute)
        case "dtmf": AnyControlVerb(dtmf)
        case "transfer": AnyControlVerb(transfer)
        case "calls": AnyControlVerb(calls)
        case "metrics": AnyControlVerb(metrics)
        default: nil
        }
    }

    /// The handshake a client sends first (protocol only; `wcs-agent --version` shows the CLI's version).
    public static let hello = ControlVerb<HelloArguments, HelloResult>(
        name: "hello", usage: "", summary: "exchange control protocol versions",
        parse: { _ in throw UsageError("hello is sent by every client verb") },
        render: nil)

    /// The daemon's state.
    public static let status = ControlVerb<NoArguments, StatusResult>(
        name: "status", usage: "[--json] [--all]",
        summary: "state, server, connected since, token age, registration, calls;\n--all: every line on this host (wcs-agent@LINE.service)",
        parse: CLIArguments.none,
        render: StatusFormatter.human,
        sendsHelloAlong: true)  // reads only

    /// Wakes the session (or handles a raw push).
    public static let reconnect = ControlVerb<ReconnectArguments, ReconnectResult>(
        name: "reconnect", usage: "[--payload FILE|-]",
        summary: """
        bring the session back now (what a push handler runs);
        exit 0 when the session is back, 4 when it is not;
        --payload: the same for a raw push {"id","uuid","handle"}, once per
        call id; a call that ended meanwhile is recorded as missed, not rung
        """,
        flags: ArgumentSpec(valueFlags: ["--payload"]), timeout: 60,
        parse: { parsed in
            _ = try CLIArguments.none(parsed)
            guard let source = parsed.value("--payload") else { return ReconnectArguments() }
            do {
                return ReconnectArguments(push: try PushPayloadReader.read(source).json)
            } catch {
                throw UsageError("\(error); not waking the agent")
            }
        },
        render: { $0.push == nil ? StatusFormatter.reconnect($0) : StatusFormatter.push($0) },
        exitCode: { result in
            if let push = result.push { return push == PushOutcome.notConnected.rawValue ? .notConnected : .ok }
            return result.status.state == StatusResult.online ? .ok : .notConnected
        },
        sendsHelloAlong: true)  // a push handler's wake: one round trip less

    /// Closes the socket on purpose.
    public static let sleep = ControlVerb<NoArguments, StatusResult>(
        name: "sleep", usage: "", summary: "close the socket on purpose; the server keeps the session",
        parse: CLIArguments.none,
        render: { _ in "asleep: the server keeps the session; `wcs-agent reconnect` or a push wakes the agent" })

    /// Re-reads the configuration.
    public static let reload = ControlVerb<NoArguments, ReloadResult>(
        name: "reload", usage: "[--json]",
        summary: """
        re-read the config file and start flags (as SIGHUP); prints what
        changed and what reconnected; exit 1 if the file does not load
        """,
        timeout: 60, parse: CLIArguments.none,
        render: { "reloaded: \($0.summary)" + ($0.reconnected ? " (reconnected)" : "") })
}
