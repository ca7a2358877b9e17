import WCSSession

/// The daemon's control-socket handler: looks the verb up in `ControlHandlers` and runs it
/// (`subscribe` is handled by the control server itself, and `hello` through `hello(_:context:)`
/// on its loop). `handle` runs on each request's task.
enum ControlDispatcher {
    static func handle(_ request: ControlRequest, context: ControlContext) async -> ControlResponse {
        guard let verb = ControlHandlers.byName[request.verb] else {
            return ControlFailure(.unknownVerb, "unknown verb \"\(request.verb)\"").response
        }
        return await verb.dispatch(request.args, context)
    }

    /// `hello`, answered at once on the control server's loop (`ControlServer.HelloResponder`).
    static func hello(_ request: ControlRequest, context: ControlContext) -> ControlResponse {
        ControlHandlers.hello.answerNow!(request.args, context)
    }
}
