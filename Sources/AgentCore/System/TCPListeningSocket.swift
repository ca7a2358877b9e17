#if canImport(Glibc)
import Glibc
#endif

/// Opens a non-blocking, close-on-exec TCP listening socket on a numeric address: what the push
/// webhook and the metrics endpoint bind. Port 0 asks the kernel for a free port; the bound port
/// is returned. Plain system calls; runs on the caller's thread.
enum TCPListeningSocket {
    /// Binds and listens on `address`; returns the descriptor and the bound port.
    /// Throws `SystemCallError` (e.g. address in use) with nothing left open.
    static func open(_ address: PushListenAddress, backlog: Int32 = 1024) throws(SystemCallError) -> (fd: Int32, port: Int) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError.current("create a socket for", path: address.description) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = PushListenAddress.socketAddress(host: address.host, port: address.port) ?? sockaddr_storage()
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let error = SystemCallError.current("listen on", path: address.description)
            FileDescriptorIO.close(fd)
            throw error
        }
        return (fd, boundPort(fd) ?? address.port)
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, right after the family.
            Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
    }
}
