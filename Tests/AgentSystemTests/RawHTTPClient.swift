import TestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Blocking TCP helpers for the webhook load tests: a whole push request, and slowloris sockets.
enum RawHTTPClient {
    /// A connected blocking TCP socket to 127.0.0.1:`port` with a receive timeout, or nil.
    static func connect(port: Int, timeout: Int = 30) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(fd)
            return nil
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// POSTs `body` to /push with `secret`; returns the status (-1 on a connection error).
    static func push(port: Int, body: String, secret: String) -> Int {
        guard let fd = connect(port: port) else { return -1 }
        defer { close(fd) }
        let request = "POST /push HTTP/1.1\r\nHost: 127.0.0.1\r\nX-WCS-Push-Secret: \(secret)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let sent = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        guard sent == request.utf8.count else { return -1 }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            answer += chunk[0..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return -1 }
        return status
    }
}

/// Sockets that send a request head one byte at a time and never the secret, reconnecting when
/// the server drops them (a slowloris attacker).
final class Slowloris: Sendable {
    private let port: Int
    private let state = Mutex((running: true, reconnects: 0))
    private let done = DispatchSemaphore(value: 0)

    /// Starts `count` sockets, each sending a byte every `interval` seconds.
    init(port: Int, count: Int, interval: Double) {
        self.port = port
        let thread = Thread { [self] in run(count: count, interval: interval) }
        thread.start()
    }

    /// How often the server dropped one of the sockets.
    var drops: Int { state.withLock { $0.reconnects } }

    /// Stops and closes every socket.
    func stop() {
        state.withLock { $0.running = false }
        done.wait()
    }

    private var isRunning: Bool { state.withLock { $0.running } }

    private func run(count: Int, interval: Double) {
        let head = Array("POST /push HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".utf8)
        var sockets: [(fd: Int32, sent: Int)] = (0..<count).map { _ in (RawHTTPClient.connect(port: port, timeout: 1) ?? -1, 0) }
        while isRunning {
            for index in sockets.indices {
                var (fd, sent) = sockets[index]
                var byte = sent < head.count ? head[sent] : UInt8(ascii: "a")
                if fd < 0 || send(fd, &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) != 1 {
                    if fd >= 0 {
                        close(fd)
                        state.withLock { $0.reconnects += 1 }
                    }
                    fd = RawHTTPClient.connect(port: port, timeout: 1) ?? -1
                    sent = 0
                } else {
                    sent += 1
                }
                sockets[index] = (fd, sent)
            }
            usleep(UInt32(interval * 1_000_000))
        }
        for socket in sockets where socket.fd >= 0 { close(socket.fd) }
        done.signal()
    }
}
