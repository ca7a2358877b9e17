import WCSSession

/// The call verbs of the table (see `ControlVerbs`).
extension ControlVerbs {
    /// A verb acting on one call, named by an optional `CALL` argument.
    private static func callVerb(_ name: String, _ usage: String, _ summary: String, done: String,
                                 _ action: @escaping @Sendable (Agent, String?) async throws -> String) -> ControlVerb<CallArguments, CallResult> {
        ControlVerb(name: name, usage: usage, summary: summary, parse: CLIArguments.optionalCall,
                    handle: { args, context in CallResult(callId: try await action(context.agent, args.callId)) },
                    render: { "\(done) \($0.callId)" })
    }

    static let answer = callVerb("answer", "[CALL]", "answer a ringing call (default: the oldest) with the configured audio",
                                 done: "answered") { try await $0.answer($1) }
    static let decline = callVerb("decline", "[CALL]", "decline a ringing call", done: "declined") { try await $0.decline($1) }
    static let hangup = callVerb("hangup", "[CALL]", "end a call (default: the one in progress)", done: "hung up") { try await $0.hangup($1) }
    static let hold = callVerb("hold", "[CALL]", "put a call on hold (default: the one in progress)", done: "holding") { try await $0.hold($1) }
    static let resume = callVerb("resume", "[CALL]", "take a held call off hold (holds any other call in progress)",
                                 done: "resumed") { try await $0.resume($1) }

    static let call = ControlVerb<DialArguments, CallResult>(
        name: "call", usage: "NUMBER", summary: "call NUMBER with the configured audio",
        parse: { DialArguments(number: try CLIArguments.one($0, "call needs a NUMBER")) },
        handle: { args, context in
            guard !args.number.isEmpty else { throw ControlFailure(.badRequest, "call needs a number") }
            return CallResult(callId: try await context.agent.call(args.number))
        },
        render: { "calling \($0.callId)" })

    private static func muteVerb(_ muted: Bool) -> ControlVerb<CallArguments, MuteResult> {
        ControlVerb(name: muted ? "mute" : "unmute", usage: "[CALL]",
                    summary: muted ? "send silence instead of the audio source" : "stop sending silence",
                    parse: CLIArguments.optionalCall,
                    handle: { args, context in MuteResult(callId: try await context.agent.setMuted(muted, args.callId), muted: muted) },
                    render: { "\(muted ? "muted" : "unmuted") \($0.callId)" })
    }

    static let mute = muteVerb(true)
    static let unmute = muteVerb(false)

    static let dtmf = ControlVerb<DTMFArguments, DTMFResult>(
        name: "dtmf", usage: "DIGITS [--type rfc2833|info] [--call CALL]",
        summary: "send DTMF (rfc2833: in-band RFC 4733, the default; info: SIP INFO)",
        flags: ArgumentSpec(valueFlags: ["--type", "--call"]),
        parse: { parsed in
            let digits = try CLIArguments.one(parsed, "dtmf needs DIGITS")
            let type = parsed.value("--type")?.lowercased()
            if let type, DTMFMethod(rawValue: type) == nil { throw UsageError("--type must be rfc2833 or info") }
            return DTMFArguments(digits: digits, type: type ?? DTMFMethod.rfc2833.rawValue, callId: parsed.value("--call"))
        },
        handle: { args, context in
            guard !args.digits.isEmpty else { throw ControlFailure(.badRequest, "dtmf needs digits") }
            let typeName = args.type ?? DTMFMethod.rfc2833.rawValue
            guard let method = DTMFMethod(rawValue: typeName.lowercased()) else {
                throw ControlFailure(.badRequest, "unknown DTMF type \"\(typeName)\": use rfc2833 or info")
            }
            let sent = try await context.agent.dtmf(args.digits, method: method, callId: args.callId)
            return try ControlCoding.decode(DTMFResult.self, from: sent)
        },
        render: { "sent DTMF \($0.digits) on \($0.callId) (\($0.via.replacingOccurrences(of: "_", with: " ")))" })

    static let transfer = ControlVerb<TransferArguments, TransferResult>(
        name: "transfer", usage: "TARGET [--call CALL]", summary: "blind-transfer a call to TARGET (progress shows in `events`)",
        flags: ArgumentSpec(valueFlags: ["--call"]), timeout: 15,
        parse: { TransferArguments(target: try CLIArguments.one($0, "transfer needs a TARGET"), callId: $0.value("--call")) },
        handle: { args, context in
            guard !args.target.isEmpty else { throw ControlFailure(.badRequest, "transfer needs a target") }
            return TransferResult(callId: try await context.agent.transfer(to: args.target, callId: args.callId), target: args.target)
        },
        render: { "transferring \($0.callId) to \($0.target)" })

    static let calls = ControlVerb<NoArguments, CallsResult>(
        name: "calls", usage: "[--json]", summary: "list calls: state, direction, party, duration, mute/hold, media",
        parse: CLIArguments.none,
        handle: { _, context in CallsResult(calls: await context.agent.callList().arrayValue ?? []) },
        render: { CallTableFormatter.table($0.calls) })
}
