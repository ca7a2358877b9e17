/// The answer to a push: what happened to the pushed call and, when the push woke the agent,
/// what the wake did.
public struct PushWakeResult: Sendable, Equatable {
    /// What happened to the pushed call.
    public let outcome: PushOutcome
    /// The wake's result; nil for a duplicate (no wake was tried).
    public let wake: Agent.WakeResult?

    /// A result with these parts.
    public init(outcome: PushOutcome, wake: Agent.WakeResult?) {
        self.outcome = outcome
        self.wake = wake
    }
}
