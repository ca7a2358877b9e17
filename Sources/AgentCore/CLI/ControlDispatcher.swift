import WCSSession

/// The daemon's control-socket handler: looks the verb up in `ControlHandlers` and runs it
/// (`subscribe` is handled by the control server itself). Runs on each request's task.
enum ControlDispatcher {
    static func handle(_ request: ControlRequest, context: ControlContext) async -> ControlResponse {
        guard let verb = ControlHandlers.byName[request.verb] else {
            return ControlFailure(.unknownVerb, "unknown verb \"\(request.verb)\"").response
        }
        return await verb.dispatch(request.args, context)
    }
}
