import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// A datagram socket standing in for systemd's notification socket.
public final class NotifyListener {
    public let fd: Int32

    public init(address: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let unixAddress = try UnixSocketAddress(address)
        guard unixAddress.withSockaddr({ bind(fd, $0, $1) }) == 0 else { throw SystemCallError.current("bind", path: address) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }
}
