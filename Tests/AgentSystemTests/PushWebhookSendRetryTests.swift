import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TestSupport

/// examples/push/webhook-send.sh retries a busy webhook (503) and gives up on a refusal (401),
/// against a real HTTP listener on 127.0.0.1 that answers from a script of statuses.
@Suite(.serialized) struct PushWebhookSendRetryTests {
    /// Answers each connection with the next status of `statuses` (the last one repeats).
    final class ScriptedHTTPServer: Sendable {
        let port: Int
        private let fd: Int32
        private let served = Mutex(0)

        init(statuses: [Int]) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = self.fd
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard ok else { throw HarnessError("cannot listen") }
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread { [self] in serve(statuses) }.start()
        }

        /// Requests answered so far.
        var requests: Int { served.withLock { $0 } }

        func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }

        private func serve(_ statuses: [Int]) {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var request: [UInt8] = []
                // Read the head and the body (the push is small: one or two reads).
                while !String(decoding: request, as: UTF8.self).contains("}") {
                    let n = recv(client, &buffer, buffer.count, 0)
                    if n <= 0 { break }
                    request += buffer[0..<n]
                }
                let index = served.withLock { count in defer { count += 1 }; return count }
                let status = statuses[min(index, statuses.count - 1)]
                let body = "{\"n\":\(index)}\n"
                let answer = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }
    }

    static func deliver(to server: ScriptedHTTPServer, _ scratch: TemporaryDirectory) throws -> (status: Int32, output: String) {
        let secret = scratch.file("secret")
        try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let url = "http://127.0.0.1:\(server.port)/push"
        return try run("/bin/sh", ["-c", "printf '{\"id\":\"r-1\"}' | WCS_PUSH_URL='\(url)' WCS_PUSH_SECRET_FILE='\(secret)' "
                                   + "'\(PushPaths.example("webhook-send.sh"))' 2>/dev/null"])
    }

    @Test func busyAnswersAreRetriedUntilTheyGetThrough() throws {
        let scratch = try TemporaryDirectory(prefix: "webhook-send")
        let server = try ScriptedHTTPServer(statuses: [503, 503, 200])
        defer { server.stop() }
        let result = try Self.deliver(to: server, scratch)
        #expect(result.status == 0, "\(result.output)")
        #expect(server.requests == 3)
        #expect(result.output.contains("{\"n\":2}"))
    }

    @Test func aRefusalIsFinalAndAPersistentlyBusyWebhookIsGivenUpOn() throws {
        let scratch = try TemporaryDirectory(prefix: "webhook-send")
        let refusing = try ScriptedHTTPServer(statuses: [401])
        defer { refusing.stop() }
        #expect(try Self.deliver(to: refusing, scratch).status == 22)
        #expect(refusing.requests == 1)

        let busy = try ScriptedHTTPServer(statuses: [503])
        defer { busy.stop() }
        #expect(try Self.deliver(to: busy, scratch).status == 22)
        #expect(busy.requests == 5)
    }
}
