import TestSupport
@testable import AgentCore
@testable import AgentTools
import Foundation
import Testing
import WCSSession

/// The verb table and the typed wire values, without a daemon: names, help, argument and result
/// encodings as docs/control-protocol.md shows them, and the dispatcher's refusals.
@Suite struct ControlVerbTableTests {
    @Test func everyVerbIsListedOnceAndHasHelp() {
        let names = ControlVerbs.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(CLICommand.all.map(\.name)).count == CLICommand.all.count)
        let usage = CLI.usage
        for verb in ControlVerbs.all where verb.isCommand {
            #expect(usage.contains("  \(verb.name)"), "--help does not list \(verb.name)")
            #expect(!verb.summary.isEmpty)
        }
        #expect(!usage.contains("  hello"), "hello is protocol only")
        for command in CLICommand.all {
            #expect(command.helpLines.allSatisfy { $0.count <= 104 }, "\(command.name): help line longer than 104 columns")
        }
        #expect(ControlVerbs.byName["reload"] != nil)
    }

    /// The client's verb table (AgentControl) and the daemon's handlers (AgentCore) name the same
    /// verbs in the same order: a verb without a handler, or a handler without a verb, fails here.
    @Test func everyVerbHasOneHandler() {
        #expect(ControlHandlers.all.map(\.name) == ControlVerbs.all.map(\.name))
        #expect(StatusResult.online == AgentPhase.online.rawValue)
        #expect(ClientCommands.defaultSocketPath == AgentConfig.defaultSocketPath)
    }

    @Test func theDocumentedWireNamesAreTheTypes() throws {
        #expect(try ControlCoding.json(DTMFArguments(digits: "12#", type: "info", callId: "c1"))
                == ["digits": "12#", "type": "info", "call_id": "c1"])
        #expect(try ControlCoding.json(HelloArguments(protocolVersion: 2, client: "x")) == ["protocol": 2, "client": "x"])
        #expect(try ControlCoding.json(CallArguments(callId: nil)) == [:])
        #expect(try ControlCoding.decode(TransferArguments.self, from: ["target": "3000"]) == TransferArguments(target: "3000", callId: nil))
        #expect(try ControlCoding.decode(NoArguments.self, from: ["ignored": true]) == NoArguments())
        let plan = ConfigReloadPlan(running: AgentConfig(server: "ws://a"), loaded: {
            var c = AgentConfig(server: "ws://a")
            c.connectTimeout = 3
            return c
        }())
        #expect(try ControlCoding.json(ReloadResult(plan)) == [
            "summary": "reconnecting by token for: [server] connect_timeout", "applied": [], "reconnect": ["[server] connect_timeout"],
            "relogin": [], "needs_restart": [], "reconnected": true,
        ])
    }

    /// `status --json` keeps every key, nulls included, exactly as the daemon's status JSON has it.
    @Test func statusAndReconnectResultsKeepEveryKey() throws {
        let status: JSONValue = [
            "state": "asleep", "server": "ws://127.0.0.1:1", "session_state": "disconnected", "registered": false,
            "has_token": true, "resumes": 3, "answer_mode": "after:4", "log_level": "info", "calls": [],
            "connected_since": .null, "token_age_seconds": 12, "session_id": "s-1", "sip_login": .null,
            "last_error": .null, "next_retry_in_seconds": 1.5, "sleep": .null,
        ]
        let typed = try ControlCoding.decode(StatusResult.self, from: status)
        #expect(typed.sipLogin == nil && typed.tokenAgeSeconds == 12 && typed.nextRetryInSeconds == 1.5)
        #expect(try ControlCoding.json(typed).serialized() == status.serialized())

        var plain = status.objectValue ?? [:]
        plain["outcome"] = "resumed"
        #expect(try ControlCoding.json(ReconnectResult(status: typed, outcome: "resumed")) == .object(plain))
        var pushed = status.objectValue ?? [:]
        pushed["outcome"] = .null
        pushed["push"] = "duplicate"
        pushed["call_id"] = "call-9"
        let decoded = try ControlCoding.decode(ReconnectResult.self, from: .object(pushed))
        #expect(decoded == ReconnectResult(status: typed, outcome: nil, push: "duplicate", callId: "call-9"))
        #expect(try ControlCoding.json(decoded) == .object(pushed))
    }

    @Test func theDispatcherRefusesUnknownVerbsBadArgumentsAndOtherProtocols() async throws {
        let state = ScratchDirectory()
        let context = ControlContext(host: AgentHost(Agent(config: AgentConfig(server: "ws://127.0.0.1:9"),
                                                           tokenStore: TokenStore(directory: state.path)) { _ in }),
                                     reloader: nil, protocolVersion: 2, peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        func send(_ verb: String, _ args: JSONValue) async -> ControlResponse {
            await ControlDispatcher.handle(ControlRequest(id: 1, verb: verb, args: args, peer: context.peer), context: context)
        }
        #expect(await send("fly", [:]) == .failure(code: "unknown_verb", message: "unknown verb \"fly\""))
        #expect(await send("dtmf", ["digits": 5]) == .failure(code: "bad_request", message: "dtmf: \"digits\" must be a string"))
        #expect(await send("call", [:]) == .failure(code: "bad_request", message: "call: missing \"number\""))
        #expect(await send("transfer", ["target": ""]) == .failure(code: "bad_request", message: "transfer needs a target"))
        #expect(await send("hello", ["protocol": 2]) == .ok(["protocol": 2, "version": .string(AgentCore.version)]))
        guard case .failure(let code, let message) = await send("hello", ["protocol": 1]) else {
            Issue.record("hello with protocol 1 was accepted")
            return
        }
        #expect(code == "protocol_mismatch")
        #expect(message.contains("speaks control protocol 2; the client speaks 1"))
        #expect(await send("reload", [:]) == .failure(code: "reload_failed", message: "this daemon cannot reload"))
    }

    /// The agent's typed status encodes to exactly the keys docs/control-protocol.md documents for
    /// `status --json` (every key present, `null` when unknown), and reads back unchanged.
    @Test func theTypedStatusCarriesEveryDocumentedKey() async throws {
        let state = ScratchDirectory()
        let agent = Agent(config: AgentConfig(server: "ws://127.0.0.1:9"), tokenStore: TokenStore(directory: state.path)) { _ in }
        let status = await agent.status()
        let json = try #require(try ControlCoding.json(status).objectValue)
        #expect(Set(json.keys) == ["state", "server", "session_state", "registered", "has_token", "resumes", "answer_mode",
                                   "log_level", "calls", "connected_since", "token_age_seconds", "session_id", "sip_login",
                                   "last_error", "next_retry_in_seconds", "sleep"])
        #expect(json["connected_since"] == .null && json["session_id"] == .null)
        #expect(try ControlCoding.decode(StatusResult.self, from: .object(json)) == status)
    }

    @Test func commandLineMistakesAreUsageErrors() throws {
        func parse(_ verb: String, _ arguments: [String]) throws {
            let entry = try #require(ControlVerbs.byName[verb])
            _ = try entry.command(try ParsedArguments(arguments, spec: ClientCommands.connectionSpec.merging(entry.flags)))
        }
        #expect(throws: UsageError("dtmf needs DIGITS")) { try parse("dtmf", []) }
        #expect(throws: UsageError("--type must be rfc2833 or info")) { try parse("dtmf", ["1", "--type", "sms"]) }
        #expect(throws: UsageError("unknown option --type")) { try parse("hold", ["--type", "info"]) }
        #expect(throws: UsageError("unexpected argument \"b\"")) { try parse("answer", ["a", "b"]) }
        #expect(throws: UsageError("call needs a NUMBER")) { try parse("call", []) }
        #expect(throws: UsageError("unknown option --payload")) { try parse("status", ["--payload", "-"]) }
        #expect(throws: UsageError("unexpected argument \"now\"")) { try parse("reload", ["now"]) }
        try parse("transfer", ["3000", "--call", "c1", "--json"])
    }
}
