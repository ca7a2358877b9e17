#if canImport(Glibc)
import Glibc
#endif

/// Errors of the test-support helpers, with messages that say what went wrong.
public enum TestSupportError: Error, CustomStringConvertible, Equatable {
    /// A system call failed with `errno`.
    case system(String, Int32)
    /// A child process printed no line within the time limit.
    case timeout(String)
    /// A child process exited before printing the expected line; carries what it printed.
    case exited(String)
    /// The emulator did not print a valid ready line; carries the reason and its stderr.
    case emulatorNotReady(String)
    /// The control API answered with an HTTP error status and message.
    case http(status: Int, message: String)
    /// The control API's answer could not be read or decoded.
    case badResponse(String)

    public var description: String {
        switch self {
        case let .system(call, code): return "\(call) failed: \(String(cString: strerror(code)))"
        case let .timeout(what): return "timed out: \(what)"
        case let .exited(output): return "child exited early: \(output)"
        case let .emulatorNotReady(detail): return "emulator not ready: \(detail)"
        case let .http(status, message): return "control API error \(status): \(message)"
        case let .badResponse(detail): return "bad control API response: \(detail)"
        }
    }
}
