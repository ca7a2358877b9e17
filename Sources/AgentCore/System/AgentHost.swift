import Synchronization

/// Holds the daemon's current `Agent`. A reload that changes the server or the SIP account
/// replaces the agent; everything that talks to the agent (control socket, watchdog probe,
/// push intake) asks the host for the current one on each use instead of keeping a reference.
/// Runs on: any thread (the agent reference sits in a `Mutex`).
public final class AgentHost: Sendable {
    private let agent: Mutex<Agent>

    /// A host starting with `agent`.
    public init(_ agent: Agent) { self.agent = Mutex(agent) }

    /// The agent in charge now.
    public var current: Agent { agent.withLock { $0 } }

    /// Puts `agent` in charge and returns the one it replaces.
    @discardableResult
    public func replace(with agent: Agent) -> Agent {
        self.agent.withLock { current in
            defer { current = agent }
            return current
        }
    }
}
