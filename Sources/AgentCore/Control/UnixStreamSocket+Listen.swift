#if canImport(Glibc)
import Glibc
#endif

/// The daemon's half of `UnixStreamSocket` (AgentControl has the client's): probing a stale socket
/// and listening. Runs where the control server starts (the daemon's start-up task).
extension UnixStreamSocket {
    /// If `path` exists: throws `.alreadyRunning` when something accepts connections there,
    /// `.notASocket` for a non-socket file, and removes a stale socket file otherwise.
    static func removeStaleSocket(at path: String) throws(ControlServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path) }
        let (address, fd) = try socket(at: path, operation: "probe control socket")
        defer { FileDescriptorIO.close(fd) }
        switch startConnect(fd, to: address) {
        case 0, EAGAIN, EINPROGRESS:
            throw .alreadyRunning(path)
        case ECONNREFUSED:
            guard unlink(path) == 0 || errno == ENOENT else { throw .system(.current("remove stale socket", path: path)) }
        case let code:
            throw .system(SystemCallError("probe existing socket", path: path, code: code))
        }
    }

    /// Binds and listens on `path` with `mode`, owned by `group` when given.
    static func listen(at path: String, mode: mode_t, group: gid_t?) throws(ControlServerError) -> Int32 {
        let (address, fd) = try socket(at: path, operation: "create control socket")
        // Until chmod below the socket has the umask's mode; peer credentials are checked anyway.
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let code = errno
            FileDescriptorIO.close(fd)
            throw code == EADDRINUSE ? .alreadyRunning(path) : .system(SystemCallError("bind control socket", path: path, code: code))
        }
        func fail(_ operation: String) -> ControlServerError {
            let error = SystemCallError.current(operation, path: path)
            FileDescriptorIO.close(fd)
            unlink(path)
            return .system(error)
        }
        guard chmod(path, mode) == 0 else { throw fail("set permissions of") }
        if let group, chown(path, uid_t.max, group) != 0 { throw fail("change group of") }
        guard Glibc.listen(fd, 64) == 0 else { throw fail("listen on") }
        return fd
    }

    /// The control socket's address and a new unbound socket for `operation`.
    private static func socket(at path: String, operation: String) throws(ControlServerError) -> (UnixSocketAddress, Int32) {
        do {
            let address = try UnixSocketAddress(path, operation: "bind control socket")
            return (address, try make(operation: operation, path: path))
        } catch {
            throw .system(error)
        }
    }
}
