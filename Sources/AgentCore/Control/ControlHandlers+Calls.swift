import WCSSession

/// The call verbs' handlers (see `ControlHandlers`).
extension ControlHandlers {
    /// A verb acting on one call, named by an optional `call_id`.
    static func call(_ verb: ControlVerb<CallArguments, CallResult>,
                     _ action: @escaping @Sendable (Agent, String?) async throws -> String) -> ControlHandler {
        ControlHandler(verb) { args, context in CallResult(callId: try await action(context.agent, args.callId)) }
    }

    static func mute(_ verb: ControlVerb<CallArguments, MuteResult>, _ muted: Bool) -> ControlHandler {
        ControlHandler(verb) { args, context in MuteResult(callId: try await context.agent.setMuted(muted, args.callId), muted: muted) }
    }

    static let dial = ControlHandler(ControlVerbs.call) { args, context in
        guard !args.number.isEmpty else { throw ControlFailure(.badRequest, "call needs a number") }
        return CallResult(callId: try await context.agent.call(args.number))
    }

    static let dtmf = ControlHandler(ControlVerbs.dtmf) { args, context in
        guard !args.digits.isEmpty else { throw ControlFailure(.badRequest, "dtmf needs digits") }
        let typeName = args.type ?? DTMFMethod.rfc2833.rawValue
        guard let method = DTMFMethod(rawValue: typeName.lowercased()) else {
            throw ControlFailure(.badRequest, "unknown DTMF type \"\(typeName)\": use rfc2833 or info")
        }
        let sent = try await context.agent.dtmf(args.digits, method: method, callId: args.callId)
        return try ControlCoding.decode(DTMFResult.self, from: sent)
    }

    static let transfer = ControlHandler(ControlVerbs.transfer) { args, context in
        guard !args.target.isEmpty else { throw ControlFailure(.badRequest, "transfer needs a target") }
        return TransferResult(callId: try await context.agent.transfer(to: args.target, callId: args.callId), target: args.target)
    }

    static let calls = ControlHandler(ControlVerbs.calls) { _, context in
        CallsResult(calls: await context.agent.callList().arrayValue ?? [])
    }
}
