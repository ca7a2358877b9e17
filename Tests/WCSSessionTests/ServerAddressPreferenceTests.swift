import Foundation
import Synchronization
import Testing
import TestSupport
@testable import WCSSession

/// A session connects first to the address that held it, resolving the URL's name in parallel: no
/// DNS on a wake, and behind round-robin DNS the resume stays on the node that holds the session;
/// a node that is gone costs one failed connect, a hung one the grace. Two emulators on one port,
/// 127.0.0.1 and 127.0.0.2, are two nodes behind the name `wcs.test`, whose DNS answer the test
/// sets (`hostLookup`, the seam for the system resolver).
@Suite(.serialized) struct ServerAddressPreferenceTests {
    static let login = "1001"
    static let password = "s3cret-pass"
    static let name = "wcs.test"

    /// The DNS answer for `wcs.test`: set by the test; a lookup can be held until `release()`.
    final class FakeDNS: Sendable {
        private let state = Mutex((answer: [String](), held: false, lookups: 0))
        private let gate = DispatchSemaphore(value: 0)

        func answer(_ addresses: [String], held: Bool = false) {
            state.withLock { $0.answer = addresses; $0.held = held }
        }

        /// Lets a held lookup finish.
        func release() { gate.signal() }

        var lookups: Int { state.withLock { $0.lookups } }

        var lookup: HostLookup {
            { [self] host in
                let held = state.withLock { $0.lookups += 1; return $0.held }
                if held { gate.wait() }
                let answer = state.withLock { $0.answer }
                guard host == ServerAddressPreferenceTests.name, !answer.isEmpty else {
                    return .failure(WebSocketError(kind: .dns, message: "could not resolve host '\(host)': no answer"))
                }
                return .success(answer)
            }
        }
    }

    /// Node A on 127.0.0.1 and node B on 127.0.0.2, same port.
    static func nodes() throws -> (a: EmulatorProcess, b: EmulatorProcess) {
        let a = try EmulatorProcess(users: [login: password])
        let b = try EmulatorProcess(users: [login: password], arguments: ["--host", "127.0.0.2", "--port", String(a.port)])
        return (a, b)
    }

    static func session(port: Int, dns: FakeDNS) -> WCSSession {
        var c = WCSSessionConfiguration(url: "ws://\(name):\(port)")
        c.credentials = SIPCredentials(login: login, password: Secret(password), domain: "pbx.test")
        c.connectTimeout = 5
        c.hostLookup = dns.lookup
        return WCSSession(configuration: c)
    }

    /// A kept address that is not a number (a host name, garbage: a hand-edited or damaged token
    /// file) is dropped with a log line; the session resolves its URL as if nothing were kept and
    /// never looks that text up.
    @Test func aKeptAddressThatIsNotANumberIsIgnored() async throws {
        for text in ["wcs.test", "garbage", "1.2.3", "127.0.0.1:8080", "[::1]", "fe80::1", "", " 127.0.0.1"] {
            #expect(WCSSession.rememberable(text) == nil, "\(text)")
        }
        for text in ["127.0.0.2", "::1", "2001:db8::7"] {
            #expect(WCSSession.rememberable(text) == text)
        }
        let a = try EmulatorProcess(users: [Self.login: Self.password])
        let dns = FakeDNS()
        dns.answer(["127.0.0.1"])
        for kept in ["wcs.test", "not an address"] {
            let session = Self.session(port: a.port, dns: dns)
            await session.preferServerAddress(kept)
            #expect(await session.serverAddress == nil)
            let lookupsBefore = dns.lookups
            _ = try await session.login()
            #expect(dns.lookups == lookupsBefore + 1, "the URL's name was resolved")
            #expect(await session.serverAddress == "127.0.0.1")
            await session.disconnect()
        }
    }

    @Test func aResumeGoesToTheNodeThatHoldsTheSessionWithoutWaitingForDNS() async throws {
        let (a, b) = try Self.nodes()
        let dns = FakeDNS()
        dns.answer(["127.0.0.1"])
        let session = Self.session(port: a.port, dns: dns)
        let info = try await session.login().session
        #expect(await session.serverAddress == "127.0.0.1")
        await session.disconnect()
        try await waitUntil { try a.control.sessions().first?.connected == false }

        // Round-robin DNS now names B first, and the resolver hangs: the resume goes to A regardless.
        dns.answer(["127.0.0.2", "127.0.0.1"], held: true)
        let lookupsBefore = dns.lookups
        let outcome = await session.resume(token: info.token)
        #expect(outcome == .resumed(info))
        #expect(try a.control.sessions().map(\.connected) == [true])
        #expect(try b.control.sessions().isEmpty, "node B never saw the agent")
        try await waitUntil { dns.lookups > lookupsBefore }
        dns.release()  // the lookup was running beside the connect, still unanswered when it opened
        #expect(await session.serverAddress == "127.0.0.1")
        await session.disconnect()
    }

    @Test func aNodeThatIsGoneCostsOneFailedConnectThenTheFreshAnswerIsUsed() async throws {
        let (a, b) = try Self.nodes()
        let dns = FakeDNS()
        dns.answer(["127.0.0.1"])
        let session = Self.session(port: a.port, dns: dns)
        let old = try await session.login().session
        await session.disconnect()
        a.kill()
        dns.answer(["127.0.0.2"])
        let outcome = await session.resume(token: old.token)
        // B does not know A's token: a fresh login there (the session was lost with its node).
        guard case .reloggedIn(.registered(let fresh), _) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(try b.control.sessions().map(\.id) == [fresh.sessionId])
        #expect(await session.serverAddress == "127.0.0.2")
        await session.disconnect()
    }

    @Test func aNodeThatAcceptsButNeverAnswersIsLeftAfterTheGrace() async throws {
        let a = try EmulatorProcess(users: [Self.login: Self.password])
        let hung = try HungListener(address: "127.0.0.3", port: a.port)
        defer { hung.close() }
        let dns = FakeDNS()
        dns.answer(["127.0.0.1"])
        let session = Self.session(port: a.port, dns: dns)
        await session.preferServerAddress("127.0.0.3")  // as stored with the token by an earlier run
        let result = try await session.login()
        guard case .registered = result else { Issue.record("not registered: \(result)"); return }
        #expect(await session.serverAddress == "127.0.0.1")
        #expect(try a.control.sessions().count == 1)
        #expect(hung.connectionsWaiting() == 1, "the remembered address was tried first")
        await session.disconnect()
    }

    @Test func withTheRememberedNodeUpAFailingResolverDoesNotMatter() async throws {
        let a = try EmulatorProcess(users: [Self.login: Self.password])
        let dns = FakeDNS()
        dns.answer(["127.0.0.1"])
        let session = Self.session(port: a.port, dns: dns)
        let info = try await session.login().session
        await session.disconnect()
        try await waitUntil { try a.control.sessions().first?.connected == false }
        dns.answer([])  // DNS is down
        #expect(await session.resume(token: info.token) == .resumed(info))
        await session.disconnect()
        // Without a remembered address the same failure is the DNS error.
        let fresh = Self.session(port: a.port, dns: dns)
        await #expect(throws: SessionError.self) { try await fresh.login() }
    }
}

/// A TCP listener that completes handshakes (kernel backlog) and never reads or answers: a node
/// that is up but hung.
final class HungListener: Sendable {
    private let fd: Int32

    init(address: String, port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &sin.sin_addr)
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestSupportError.system("listen on \(address):\(port)", code)
        }
    }

    /// Connections the kernel completed and nobody accepted (accepts and closes them).
    func connectionsWaiting() -> Int {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var count = 0
        while case let client = accept(fd, nil, nil), client >= 0 {
            count += 1
            Glibc.close(client)
        }
        return count
    }

    func close() { Glibc.close(fd) }
}
