import FoundationEssentials
import Glibc

/// Errors from audio sources and sinks, each with a readable description.
public enum AudioIOError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A system call failed: what we were doing, and `strerror`'s text.
    case system(operation: String, errno: Int32, message: String)
    /// The sink was closed; no more samples are accepted.
    case closed
    /// The sink's background writer stopped (for example the reading process went away).
    case sinkFailed(String)
    /// The external command could not be started.
    case spawnFailed(command: String, message: String)
    /// A bad argument, such as a buffer size of zero.
    case invalidArgument(String)
    /// A library the device needs (alsa-lib, loaded at the first `alsa:` device) cannot be loaded:
    /// the loader's reason.
    case libraryUnavailable(String)

    public var description: String {
        switch self {
        case let .system(operation, errno, message): "\(operation) failed: \(message) (errno \(errno))"
        case .closed: "the audio sink is closed"
        case let .sinkFailed(reason): "the audio sink stopped: \(reason)"
        case let .spawnFailed(command, message): "cannot start audio command '\(command)': \(message)"
        case let .invalidArgument(text): "invalid argument: \(text)"
        case let .libraryUnavailable(reason): "audio library unavailable: \(reason)"
        }
    }

    public var errorDescription: String? { description }

    /// The error for the current `errno` after `operation` failed.
    static func lastSystemError(_ operation: String) -> AudioIOError {
        let code = errno
        return .system(operation: operation, errno: code, message: String(cString: strerror(code)))
    }
}
