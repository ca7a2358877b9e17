import AgentCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `wcs-agent doctor`'s STUN and TURN checks: a Binding request (the server-reflexive address
/// the server sees), and a TURN Allocate with the long-term credentials (401 challenge, then the
/// signed request), released at once with a Refresh of lifetime 0. UDP requests are resent every
/// 0.5 s until the deadline; TCP frames by the STUN header's length.
///
/// Blocking system calls with poll() deadlines, on the CLI's thread (the doctor runs no loop).
enum STUNProbe {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What a Binding request answered: the server-reflexive address, e.g. `203.0.113.7:41000`.
    static func binding(host: String, port: Int, timeout: Double) throws(Failure) -> String {
        let connection = try Connection(host: host, port: port, tcp: false, timeout: timeout)
        defer { connection.close() }
        let answer = try connection.exchange(STUNMessage(request: .binding), key: nil)
        guard answer.messageClass == .success, let mapped = answer.address(.xorMappedAddress) else {
            throw Failure("the Binding request got \(answer.errorCode.map { "error \($0)" } ?? "no mapped address")")
        }
        return mapped
    }

    /// A TURN allocation with `user`/`password` over `transport` (`udp` or `tcp`); returns the
    /// relayed address. The allocation is released before returning.
    static func allocate(host: String, port: Int, tcp: Bool, user: String, password: String, timeout: Double) throws(Failure) -> String {
        let connection = try Connection(host: host, port: port, tcp: tcp, timeout: timeout)
        defer { connection.close() }
        var request = STUNMessage(request: .allocate)
        request.add(.requestedTransport, [17, 0, 0, 0])
        let challenge = try connection.exchange(request, key: nil)
        guard challenge.messageClass == .error, challenge.errorCode == 401, let realm = challenge.value(.realm), let nonce = challenge.value(.nonce) else {
            throw Failure("the server did not ask for credentials (\(challenge.errorCode.map { "error \($0)" } ?? "\(challenge.messageClass)")): is it a TURN server?")
        }
        let key = STUNMessage.longTermKey(user: user, realm: String(decoding: realm, as: UTF8.self), password: password)
        var signed = STUNMessage(request: .allocate)
        signed.add(.requestedTransport, [17, 0, 0, 0])
        signed.add(.username, Array(user.utf8))
        signed.add(.realm, realm)
        signed.add(.nonce, nonce)
        let answer = try connection.exchange(signed, key: key)
        guard answer.messageClass == .success, let relayed = answer.address(.xorRelayedAddress) else {
            let code = answer.errorCode
            throw Failure(code == 401 ? "the TURN server refused the credentials (401)" : "the Allocate request failed (\(code.map { "error \($0)" } ?? "no relayed address"))")
        }
        var release = STUNMessage(request: .refresh)
        release.add(.lifetime, [0, 0, 0, 0])
        release.add(.username, Array(user.utf8))
        release.add(.realm, realm)
        release.add(.nonce, nonce)
        _ = try? connection.exchange(release, key: key)
        return relayed
    }

    /// One socket to the server, with a deadline for everything.
    private final class Connection {
        let fd: Int32
        let tcp: Bool
        let deadline: Double

        init(host: String, port: Int, tcp: Bool, timeout: Double) throws(Failure) {
            self.tcp = tcp
            deadline = MonotonicTime.now() + timeout
            var hints = addrinfo()
            hints.ai_socktype = Int32(tcp ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw Failure("cannot resolve \(host)") }
            defer { freeaddrinfo(list) }
            fd = socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw Failure("cannot create a socket") }
            if connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 && errno != EINPROGRESS {
                let reason = String(cString: strerror(errno))
                close()
                throw Failure("cannot connect to \(host):\(port): \(reason)")
            }
        }

        func close() { Glibc.close(fd) }

        /// Sends `request` (signed with `key`) and waits for the answer with its transaction id.
        func exchange(_ request: STUNMessage, key: [UInt8]?) throws(Failure) -> STUNMessage {
            let bytes = request.encoded(integrityKey: key)
            var buffer: [UInt8] = []
            var nextSend = 0.0
            while true {
                let now = MonotonicTime.now()
                if now >= deadline { throw Failure("no answer within the timeout") }
                if now >= nextSend {
                    if tcp && nextSend > 0 { nextSend = .infinity } else {
                        if tcp, !wait(POLLOUT, until: deadline) { throw Failure("cannot connect (TCP) within the timeout") }
                        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
                            throw Failure("cannot send: \(String(cString: strerror(errno)))")
                        }
                        nextSend = tcp ? .infinity : now + 0.5
                    }
                }
                guard wait(POLLIN, until: min(deadline, nextSend)) else { continue }
                var chunk = [UInt8](repeating: 0, count: 2048)
                let count = recv(fd, &chunk, chunk.count, 0)
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                guard count > 0 else { throw Failure(count == 0 ? "the server closed the connection" : "no answer: \(String(cString: strerror(errno)))") }
                buffer += chunk[0..<count]
                while buffer.count >= 20, buffer.count >= STUNMessage.totalLength(header: Array(buffer.prefix(20))) {
                    let length = STUNMessage.totalLength(header: Array(buffer.prefix(20)))
                    let message = STUNMessage(decoding: Array(buffer.prefix(length)))
                    buffer.removeFirst(tcp ? length : buffer.count)
                    if let message, message.transactionID == request.transactionID { return message }
                }
                if !tcp { buffer.removeAll() }
            }
        }

        private func wait(_ events: Int32, until: Double) -> Bool {
            var pfd = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ms = Int32(max(0, min(until, deadline) - MonotonicTime.now()) * 1000)
            return poll(&pfd, 1, ms) > 0
        }
    }
}
