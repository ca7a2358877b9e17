import Foundation
import WCSSession

/// The verbs that talk to a running daemon over its control socket.
enum ClientCommands {
    static let spec = ArgumentSpec(valueFlags: ["--socket", "--config", "--line", "--timeout", "--type", "--call", "--payload"],
                                   booleanFlags: ["--json", "--all"])

    static func run(verb: String, _ arguments: [String]) async -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, spec: spec)
            let allowed = ["answer": 1, "decline": 1, "hangup": 1, "call": 1, "hold": 1, "resume": 1, "mute": 1,
                           "unmute": 1, "dtmf": 1, "transfer": 1][verb] ?? 0
            if parsed.positional.count > allowed { throw UsageError("unexpected argument \"\(parsed.positional[allowed])\"") }
            if verb == "call" && parsed.positional.isEmpty { throw UsageError("call needs a NUMBER") }
            try CallControlCommands.validate(verb: verb, parsed)
            if verb != "reconnect" && parsed.value("--payload") != nil { throw UsageError("--payload belongs to reconnect") }
            if parsed.has("--all") && verb != "status" { throw UsageError("--all belongs to status") }
            if parsed.has("--all") && parsed.lastFlag(among: ["--socket", "--config", "--line"]) != nil {
                throw UsageError("--all lists every line; it takes no --socket, --config or --line")
            }
            _ = try AgentLine.selected(parsed, useEnvironment: true)
        } catch {
            CLI.printError("wcs-agent \(verb): \(error)")
            return ExitCode.usage.rawValue
        }
        var push: PushPayload?
        if let source = parsed.value("--payload") {
            do {
                push = try PushPayloadReader.read(source)
            } catch {
                CLI.printError("wcs-agent reconnect: \(error); not waking the agent")
                return ExitCode.usage.rawValue
            }
        }
        let json = parsed.has("--json")
        let timeout = parsed.value("--timeout").flatMap(Double.init) ?? (verb == "reconnect" ? 60 : 10)
        if parsed.has("--all") { return LineStatus.run(json: json, timeout: timeout) }
        do {
            let path = try socketPath(parsed)
            let client = try ControlClient.connect(path: path, timeout: 5)
            defer { client.close() }
            switch verb {
            case "status":
                let status = try client.request("status", timeout: timeout)
                print(json ? status.serialized() : StatusFormatter.human(status))
                return ExitCode.ok.rawValue
            case "reconnect" where push != nil:
                let result = try client.request("reconnect", args: ["push": push?.json ?? .null], timeout: timeout)
                print(json ? result.serialized() : StatusFormatter.push(result))
                return result["push"]?.stringValue == PushOutcome.notConnected.rawValue ? ExitCode.notConnected.rawValue : ExitCode.ok.rawValue
            case "reconnect":
                let result = try client.request("reconnect", timeout: timeout)
                if json { print(result.serialized()) } else { print(StatusFormatter.reconnect(result)) }
                return result["state"]?.stringValue == AgentPhase.online.rawValue ? ExitCode.ok.rawValue : ExitCode.notConnected.rawValue
            case "sleep":
                let status = try client.request("sleep", timeout: timeout)
                print(json ? status.serialized() : "asleep: the server keeps the session; `wcs-agent reconnect` or a push wakes the agent")
                return ExitCode.ok.rawValue
            case "answer", "decline", "hangup", "call":
                var args: [String: JSONValue] = [:]
                if let target = parsed.positional.first { args[verb == "call" ? "number" : "call_id"] = .string(target) }
                let result = try client.request(verb, args: .object(args), timeout: timeout)
                print(json ? result.serialized() : "\(verb == "call" ? "calling" : verb == "answer" ? "answered" : verb == "decline" ? "declined" : "hung up") \(result["call_id"]?.stringValue ?? "")")
                return ExitCode.ok.rawValue
            case "hold", "resume", "mute", "unmute", "dtmf", "transfer", "calls":
                return try CallControlCommands.run(verb: verb, parsed, client: client, json: json, timeout: timeout)
            default: // events
                try client.subscribe(timeout: timeout)
                while true {
                    let event = try client.nextEvent(timeout: nil)
                    print(json ? event.serialized() : StatusFormatter.event(event))
                    fflush(nil)
                }
            }
        } catch let error as ControlClientError {
            CLI.printError("wcs-agent \(verb): \(error)")
            if case .daemonNotRunning = error { return ExitCode.daemonNotRunning.rawValue }
            if case .disconnected = error, verb == "events" { return ExitCode.ok.rawValue }
            return ExitCode.failure.rawValue
        } catch {
            CLI.printError("wcs-agent \(verb): \(error)")
            return ExitCode.failure.rawValue
        }
    }

    /// `--socket`, else `--line`'s socket, else the config file's `[agent] socket`, else
    /// `$WCS_AGENT_SOCKET`, else `$WCS_AGENT_LINE`'s socket, else `$RUNTIME_DIRECTORY/control.sock`,
    /// else /run/wcs-agent/control.sock.
    static func socketPath(_ parsed: ParsedArguments) throws -> String {
        if let path = parsed.value("--socket") { return path }
        if parsed.value("--line") != nil, let line = try AgentLine.selected(parsed, useEnvironment: false) {
            return try line.controlSocket()
        }
        if let file = parsed.value("--config") {
            let config = try ConfigFile.load(path: file)
            if let path = try config.section("agent").path("socket") { return path }
        }
        let env = ProcessInfo.processInfo.environment
        if let path = env["WCS_AGENT_SOCKET"], !path.isEmpty { return path }
        if parsed.value("--config") == nil, let line = try AgentLine.selected(parsed, useEnvironment: true) {
            return try line.controlSocket()
        }
        if let dir = env["RUNTIME_DIRECTORY"]?.split(separator: ":").first { return "\(dir)/control.sock" }
        return AgentConfig.defaultSocketPath
    }
}

/// Human renderings of status, reconnect results and events.
enum StatusFormatter {
    static func human(_ s: JSONValue) -> String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) { lines.append(label.padding(toLength: 17, withPad: " ", startingAt: 0) + value) }
        let state = s["state"]?.stringValue ?? "?"
        let registered = s["registered"]?.boolValue == true
        row("state:", state + (state == "online" ? (registered ? " (registered)" : " (not registered)") : ""))
        row("server:", s["server"]?.stringValue ?? "?")
        row("session:", s["session_id"]?.stringValue ?? "-")
        row("sip login:", s["sip_login"]?.stringValue ?? "-")
        row("connected since:", s["connected_since"]?.stringValue ?? "-")
        row("token age:", s["token_age_seconds"]?.intValue.map(duration) ?? (s["has_token"]?.boolValue == true ? "?" : "no token"))
        if let retry = s["next_retry_in_seconds"], !retry.isNull { row("next retry in:", "\(retry.stringValue ?? "?") s") }
        if let error = s["last_error"]?.stringValue { row("last error:", error) }
        let calls = s["calls"]?.arrayValue ?? []
        row("calls:", calls.isEmpty ? "none" : "\(calls.count)")
        for call in calls {
            let flags = (call["held"]?.boolValue == true ? "  held" : "") + (call["muted"]?.boolValue == true ? "  muted" : "")
            lines.append("  \(call["call_id"]?.stringValue ?? "?")  \(call["direction"]?.stringValue ?? "")  \(call["status"]?.stringValue ?? "")  \(party(call))\(flags)")
        }
        return lines.joined(separator: "\n")
    }

    static func reconnect(_ r: JSONValue) -> String {
        let outcome = r["outcome"]?.stringValue ?? "?"
        let state = r["state"]?.stringValue ?? "?"
        if state == "online" { return "online (\(outcome.replacingOccurrences(of: "_", with: " ")))" }
        return "not back: \(state)\(r["last_error"]?.stringValue.map { ": \($0)" } ?? "")"
    }

    static func push(_ r: JSONValue) -> String {
        let call = r["call_id"]?.stringValue ?? "?"
        switch r["push"]?.stringValue {
        case PushOutcome.ringing.rawValue: return "push for call \(call): ringing; \(reconnect(r))"
        case PushOutcome.missed.rawValue: return "push for call \(call): the call ended before the session came back; recorded as missed"
        case PushOutcome.duplicate.rawValue: return "push for call \(call): already handled (duplicate); nothing done"
        default: return "push for call \(call): \(reconnect(r))"
        }
    }

    static func event(_ e: JSONValue) -> String {
        let time = e["time"]?.stringValue.map { String($0.dropFirst(11).prefix(12)) } ?? ""
        let type = e["type"]?.stringValue ?? "?"
        var detail: String
        switch type {
        case "incoming_call": detail = "\(e["call_id"]?.stringValue ?? "?") from \(party(e))\(e["replayed"]?.boolValue == true ? " (after resume)" : "")"
        case "call_status": detail = "\(e["call_id"]?.stringValue ?? "?") \(e["status"]?.stringValue ?? "")\(e["info"]?.stringValue.map { " (\($0))" } ?? "")"
        case "state", "session_state": detail = e["state"]?.stringValue ?? ""
        case "disconnected": detail = e["reason"]?.stringValue ?? ""
        default:
            var o = e.objectValue ?? [:]
            o["time"] = nil
            o["type"] = nil
            detail = o.isEmpty ? "" : JSONValue.object(o).serialized()
        }
        return "\(time) \(type) \(detail)"
    }

    static func party(_ call: JSONValue) -> String {
        let number = call["caller"]?.stringValue ?? "?"
        if let name = call["display_name"]?.stringValue, name != number { return "\(name) <\(number)>" }
        return number
    }

    static func duration(_ seconds: Int) -> String {
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }
}
