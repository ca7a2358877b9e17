import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client for 127.0.0.1 over a plain TCP socket: one request per connection,
/// the whole answer read until the server closes (the emulator always sends `Connection: close`).
enum LoopbackHTTP {
    /// Sends `method path` with an optional JSON body; returns the status code and the body bytes.
    static func request(port: Int, method: String, path: String, body: Data?, timeout: Double) throws
        -> (status: Int, body: Data)
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError.system("socket", errno) }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestSupportError.system("connect 127.0.0.1:\(port)", errno) }

        let payload = body ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n\r\n"
        try writeAll(fd, Data(head.utf8) + payload)
        return try parse(readAll(fd))
    }

    private static func writeAll(_ fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw TestSupportError.system("write", errno)
                }
                offset += written
            }
        }
    }

    private static func readAll(_ fd: Int32) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw TestSupportError.timeout("control API answer")
                }
                throw TestSupportError.system("read", errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
        }
    }

    private static func parse(_ response: Data) throws -> (status: Int, body: Data) {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = response.range(of: separator) else {
            throw TestSupportError.badResponse("no HTTP header end in \(response.count) bytes")
        }
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestSupportError.badResponse("bad status line: \(statusLine)")
        }
        return (status, Data(response[end.upperBound...]))
    }
}
