/// Why a `ControlClient` call failed, worded for CLI users.
public enum ControlClientError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No daemon listens on the socket (missing file or connection refused).
    case daemonNotRunning(String)
    /// The socket file or the daemon refused this user.
    case permissionDenied(String)
    /// The daemon answered `ok: false`.
    case remote(code: String, message: String)
    /// No answer within the timeout.
    case timedOut
    /// The daemon closed the connection.
    case disconnected
    /// The daemon sent something that is not the control protocol.
    case protocolError(String)
    /// The daemon speaks another control protocol version (see `ControlProtocolVersion`).
    case protocolMismatch(String)
    /// A system call failed.
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path): "wcs-agent is not running (nothing listens on \(path))"
        case .permissionDenied(let path): "permission denied on \(path): run as root, as the agent's user, or as a member of its socket group"
        case .remote(let code, let message): "\(message) [\(code)]"
        case .timedOut: "timed out waiting for wcs-agent"
        case .disconnected: "wcs-agent closed the connection"
        case .protocolError(let detail): "unexpected reply from wcs-agent: \(detail)"
        case .protocolMismatch(let detail): "control protocol mismatch: \(detail)"
        case .system(let error): error.description
        }
    }
}
