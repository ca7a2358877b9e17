#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: what was attempted, on which path (if any), and the `errno` it set.
///
/// The description reads like `cannot rename /var/lib/wcs-agent/token.json: No space left on device (errno 28)`.
/// It never contains file contents, so it is safe to log.
public struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A short verb phrase, e.g. `create`, `rename`, `bind`.
    public let operation: String
    /// The path involved, or an empty string.
    public let path: String
    /// The `errno` value.
    public let code: Int32

    /// Creates an error from an explicit `errno` value.
    public init(_ operation: String, path: String = "", code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// Creates an error from the calling thread's current `errno`.
    public static func current(_ operation: String, path: String = "") -> SystemCallError {
        SystemCallError(operation, path: path, code: errno)
    }

    /// The C library's text for `code`.
    public var reason: String { String(cString: strerror(code)) }

    public var description: String {
        let target = path.isEmpty ? "" : " \(path)"
        return "cannot \(operation)\(target): \(reason) (errno \(code))"
    }
}
