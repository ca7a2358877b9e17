/// The connectivity state an `ICEAgent` reports through `onStateChange`.
///
/// The usual sequence is `checking` → `connected` → `ready`. `failed` and `closed` are
/// terminal: after `failed` only `closed` may follow, and nothing follows `closed`.
public enum ICEState: Sendable, Equatable {
    /// Connectivity checks are running (from `setRemote` on).
    case checking
    /// A working pair exists and data can flow; nomination is not final yet.
    case connected
    /// A pair is nominated: ICE is complete.
    case ready
    /// No pair within `connectTimeout`, libnice gave up, or consent was lost. The reason is
    /// always `ICEState.failureReason`, the text WCS uses for this failure.
    case failed(String)
    /// `close()` was called.
    case closed

    /// The failure reason of every ICE failure: "Failed by ICE error".
    public static let failureReason = "Failed by ICE error"

    /// Whether no state except `closed` can follow.
    public var isTerminal: Bool {
        switch self {
        case .failed, .closed: true
        case .checking, .connected, .ready: false
        }
    }
}

/// Errors thrown by `ICEAgent` calls (state changes are reported through `ICEState` instead).
public enum ICEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration is unusable; the text says why.
    case invalidConfiguration(String)
    /// libnice could not create the agent or its stream.
    case agentCreationFailed
    /// A configured local address is neither an IP literal nor an interface with an IPv4 address.
    case invalidLocalAddress(String)
    /// A STUN/TURN host name did not resolve to an address.
    case unresolvableServer(String)
    /// Gathering could not start or produced no candidate; the text says why.
    case gatheringFailed(String)
    /// The remote ufrag or pwd is empty or was refused by libnice.
    case invalidRemoteCredentials
    /// A call came in the wrong order (such as `setRemote` before `gather`, or `gather` twice).
    case invalidState(String)
    /// The agent was closed.
    case closed
    /// libnice could not be loaded (`NiceLibrary`); the text is the loader's reason.
    case libraryUnavailable(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let reason): "invalid ICE configuration: \(reason)"
        case .agentCreationFailed: "libnice could not create the ICE agent"
        case .invalidLocalAddress(let address): "local address '\(address)' is not an IP address or an interface with an IPv4 address"
        case .unresolvableServer(let host): "ICE server '\(host)' does not resolve"
        case .gatheringFailed(let reason): "ICE gathering failed: \(reason)"
        case .invalidRemoteCredentials: "remote ICE ufrag/pwd missing or refused"
        case .invalidState(let reason): "ICE agent used out of order: \(reason)"
        case .closed: "ICE agent is closed"
        case .libraryUnavailable(let reason): "libnice unavailable: \(reason)"
        }
    }
}
