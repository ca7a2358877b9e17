import Foundation
import WCSSession

/// Daemon side of the in-call verbs: `hold`, `resume`, `mute`, `unmute`, `dtmf`, `transfer`, `calls`.
/// Arguments: `call_id` (optional), `digits` and `type` (dtmf), `target` (transfer).
enum CallControlDispatch {
    static func handle(_ request: ControlRequest, agent: Agent) async -> ControlResponse {
        let callId = request.args["call_id"]?.stringValue
        do {
            switch request.verb {
            case "calls":
                return .ok(["calls": await agent.callList()])
            case "hold":
                return .ok(["call_id": .string(try await agent.hold(callId))])
            case "resume":
                return .ok(["call_id": .string(try await agent.resume(callId))])
            case "mute", "unmute":
                return .ok(["call_id": .string(try await agent.setMuted(request.verb == "mute", callId)), "muted": .bool(request.verb == "mute")])
            case "dtmf":
                guard let digits = request.args["digits"]?.stringValue, !digits.isEmpty else {
                    return .failure(code: ControlErrorCode.badRequest, message: "dtmf needs digits")
                }
                let typeName = request.args["type"]?.stringValue ?? DTMFMethod.rfc2833.rawValue
                guard let method = DTMFMethod(rawValue: typeName.lowercased()) else {
                    return .failure(code: ControlErrorCode.badRequest, message: "unknown DTMF type \"\(typeName)\": use rfc2833 or info")
                }
                return .ok(try await agent.dtmf(digits, method: method, callId: callId))
            default: // transfer
                guard let target = request.args["target"]?.stringValue, !target.isEmpty else {
                    return .failure(code: ControlErrorCode.badRequest, message: "transfer needs a target")
                }
                return .ok(["call_id": .string(try await agent.transfer(to: target, callId: callId)), "target": .string(target)])
            }
        } catch {
            return .failure(code: "call_error", message: error.description)
        }
    }
}
