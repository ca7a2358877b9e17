#if canImport(Glibc)
import SystemSupport
import Glibc
#endif

/// Creating and connecting Unix stream sockets (all descriptors CLOEXEC + non-blocking); the
/// daemon's listening half is AgentCore's `UnixStreamSocket+Listen.swift`. Any thread.
public enum UnixStreamSocket {
    /// A new non-blocking, close-on-exec stream socket.
    public static func make(operation: String, path: String) throws(SystemCallError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError.current(operation, path: path) }
        return fd
    }

    /// Starts a connection; returns 0 or the errno (`EAGAIN` means the listener's backlog is full).
    public static func startConnect(_ fd: Int32, to address: UnixSocketAddress) -> Int32 {
        let result = address.withSockaddr { connect(fd, $0, $1) }
        return result == 0 ? 0 : errno
    }
}
