import Foundation

/// Holds the daemon's current `Agent`. A reload that changes the server or the SIP account
/// replaces the agent; everything that talks to the agent (control socket, watchdog probe,
/// push intake) asks the host for the current one on each use instead of keeping a reference.
public final class AgentHost: @unchecked Sendable {
    private let lock = NSLock()
    private var agent: Agent

    /// A host starting with `agent`.
    public init(_ agent: Agent) { self.agent = agent }

    /// The agent in charge now.
    public var current: Agent { lock.withLock { agent } }

    /// Puts `agent` in charge and returns the one it replaces.
    @discardableResult
    public func replace(with agent: Agent) -> Agent {
        lock.withLock {
            let old = self.agent
            self.agent = agent
            return old
        }
    }
}
