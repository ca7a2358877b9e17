import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import WCSJSON

/// A raw line-oriented client for wire-level checks (the real `ControlClient` hides the framing).
public final class RawLineClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try UnixSocketAddress(path)
        let result = address.withSockaddr { connect(fd, $0, $1) }
        guard result == 0 else { throw SystemCallError.current("connect", path: path) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func send(_ text: String) {
        _ = FileDescriptorIO.writeAll(fd, text)
    }

    /// The next line parsed as JSON, or nil on EOF/timeout.
    public func readLine() -> JSONValue? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Data(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return try? JSONValue.parse(line)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
