/// Why a `ControlServer` could not start.
public enum ControlServerError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Another process answers on the socket path (another agent instance is running).
    case alreadyRunning(String)
    /// Something that is not a socket exists at the path; it is left alone.
    case notASocket(String)
    /// The configured socket group does not exist.
    case unknownGroup(String)
    /// A system call failed.
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .alreadyRunning(let path): "another wcs-agent is already running (it answers on \(path))"
        case .notASocket(let path): "\(path) exists and is not a socket; remove it or choose another --socket path"
        case .unknownGroup(let name): "unknown socket group \"\(name)\""
        case .system(let error): error.description
        }
    }
}
