import WCSSession

/// The one way into the agent for pushes: the `reconnect` request with a `push` argument
/// (`wcs-agent reconnect --payload`) and the webhook both end here.
enum PushIntake {
    /// Handles a `reconnect` request carrying `push`: the agent's status plus `push`
    /// (`ringing`, `missed`, `duplicate` or `not_connected`), `call_id` and `outcome` (the wake's
    /// result, null when no wake was tried). A payload without a usable `id` is a `bad_request`.
    static func reconnect(_ push: JSONValue, agent: Agent) async throws -> ReconnectResult {
        let payload: PushPayload
        do {
            payload = try PushPayload(json: push)
        } catch {
            throw ControlFailure(.badRequest, error.description)
        }
        let result = await agent.wake(push: payload, source: .reconnect)
        return ReconnectResult(status: try await ControlVerbs.statusOf(agent), outcome: result.wake?.rawValue,
                               push: result.outcome.rawValue, callId: payload.callId)
    }

    /// Handles a webhook push: a short answer (`push`, `call_id`, `outcome`, `state`), no status details.
    static func webhook(_ payload: PushPayload, agent: Agent) async -> JSONValue {
        let result = await agent.wake(push: payload, source: .webhook)
        var answer = fields(result, payload)
        answer["state"] = .string(await agent.status().state)
        return .object(answer)
    }

    private static func fields(_ result: PushWakeResult, _ payload: PushPayload) -> [String: JSONValue] {
        ["push": .string(result.outcome.rawValue), "call_id": .string(payload.callId),
         "outcome": result.wake.map { .string($0.rawValue) } ?? .null]
    }
}
