import Foundation
import WCSSession

/// Maps control-socket requests onto the agent. Verbs: `status`, `reconnect`, `sleep`
/// (`subscribe` is handled by the control server itself).
enum ControlDispatcher {
    static func handle(_ request: ControlRequest, agent: Agent) async -> ControlResponse {
        switch request.verb {
        case "status":
            return .ok(await agent.status())
        case "reconnect" where request.args["push"] != nil:
            return await PushIntake.reconnect(request.args["push"] ?? .null, agent: agent)
        case "reconnect":
            let result = await agent.wake(reason: "reconnect request")
            var status = await agent.status().objectValue ?? [:]
            status["outcome"] = .string(result.rawValue)
            return .ok(.object(status))
        case "sleep":
            do {
                try await agent.sleep()
                return .ok(await agent.status())
            } catch {
                return .failure(code: "cannot_sleep", message: error.description)
            }
        case "answer", "decline", "hangup":
            let callId = request.args["call_id"]?.stringValue
            do {
                let id: String
                switch request.verb {
                case "answer": id = try await agent.answer(callId)
                case "decline": id = try await agent.decline(callId)
                default: id = try await agent.hangup(callId)
                }
                return .ok(["call_id": .string(id)])
            } catch {
                return .failure(code: "call_error", message: error.description)
            }
        case "call":
            guard let number = request.args["number"]?.stringValue, !number.isEmpty else {
                return .failure(code: ControlErrorCode.badRequest, message: "call needs a number")
            }
            do {
                return .ok(["call_id": .string(try await agent.call(number))])
            } catch {
                return .failure(code: "call_error", message: error.description)
            }
        case "hold", "resume", "mute", "unmute", "dtmf", "transfer", "calls":
            return await CallControlDispatch.handle(request, agent: agent)
        default:
            return .failure(code: ControlErrorCode.unknownVerb, message: "unknown verb \"\(request.verb)\"")
        }
    }
}
