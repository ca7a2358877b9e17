import Foundation
import WCSSession

/// Maps control-socket requests onto the agent. Verbs: `status`, `reconnect`, `sleep`
/// (`subscribe` is handled by the control server itself).
enum ControlDispatcher {
    static func handle(_ request: ControlRequest, agent: Agent) async -> ControlResponse {
        switch request.verb {
        case "status":
            return .ok(await agent.status())
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
        default:
            return .failure(code: ControlErrorCode.unknownVerb, message: "unknown verb \"\(request.verb)\"")
        }
    }
}
