#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for a filesystem path or a Linux abstract name (written `@name`).
public struct UnixSocketAddress {
    private var storage = sockaddr_un()
    /// The length to pass to `bind`/`connect`/`sendto`.
    public let length: socklen_t

    /// The largest path that fits `sun_path` with its terminating NUL.
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Builds the address. A leading `@` means the abstract namespace (no file, no NUL terminator).
    /// Throws ENAMETOOLONG for names that do not fit, EINVAL for an empty or NUL-containing name.
    public init(_ name: String, operation: String = "use socket") throws(SystemCallError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { throw SystemCallError(operation, path: name, code: EINVAL) }
        let abstract = bytes[0] == UInt8(ascii: "@")
        guard bytes.count <= Self.maximumPathLength else {
            throw SystemCallError(operation, path: name, code: ENAMETOOLONG)
        }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            if abstract { raw[0] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
