import Foundation
import MainLoop
import Testing
@testable import WCSSession

/// Plain ws:// behaviour against the Python fixture.
@Suite struct TransportTests {
    @Test func echoesManyMessagesAndA200KBMessageInOrder() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        // Queued before the connection opens; must go out in order.
        let messages = (0..<100).map { "message-\($0)" }
        for message in messages { connection.send(message) }
        let big = String(repeating: "0123456789abcdef", count: 200 * 1024 / 16)
        connection.send(big)
        connection.send("after-big")

        #expect(await recorder.wait { $0.count >= 103 || $0.contains(where: \.isTerminal) })
        #expect(recorder.events.first == .opened)
        #expect(recorder.texts == messages + [big, "after-big"])
        connection.close()
        #expect(await recorder.waitTerminal() == .closed(code: 1000, reason: ""))
    }

    @Test func sendsFromEightThreadsKeepPerThreadOrder() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitOpened())
        let threads = (0..<8).map { index in
            Thread {
                for sequence in 0..<50 { connection.send("\(index):\(sequence)") }
            }
        }
        threads.forEach { $0.start() }
        #expect(await recorder.wait { _ in recorder.texts.count >= 400 })
        let texts = recorder.texts
        #expect(texts.count == 400)
        for index in 0..<8 {
            let mine = texts.filter { $0.hasPrefix("\(index):") }
            #expect(mine == (0..<50).map { "\(index):\($0)" })
        }
        connection.close(code: 4000, reason: "done")
        #expect(await recorder.waitTerminal() == .closed(code: 4000, reason: "done"))
    }

    @Test func ipv6LiteralWorks() async throws {
        let server = try await TransportTestServer.start(.echo, host: "::1")
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        connection.send("over ipv6")
        #expect(await recorder.wait { _ in recorder.texts == ["over ipv6"] })
        connection.close()
        #expect(await recorder.waitTerminal() == .closed(code: 1000, reason: ""))
    }

    @Test func hostNameIsResolvedOffTheLoop() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url(host: "localhost", path: "/some/path?x=1")))
        connection.send("via localhost")
        #expect(await recorder.wait { _ in recorder.texts == ["via localhost"] })
        connection.close()
        #expect(await recorder.waitTerminal() == .closed(code: 1000, reason: ""))
    }

    @Test(arguments: [("127.0.0.1", "localhost", "/"), ("127.0.0.1", "127.0.0.1", "/wcs?x=1&y=%20"), ("::1", "::1", "/v6")])
    func hostHeaderAndPathFollowTheURL(bind: String, urlHost: String, path: String) async throws {
        let server = try await TransportTestServer.start(.request, host: bind)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url(host: urlHost, path: path)))
        #expect(await recorder.wait { _ in !recorder.texts.isEmpty })
        let expectedHost = urlHost.contains(":") ? "[\(urlHost)]:\(server.port)" : "\(urlHost):\(server.port)"
        let reported = try JSONSerialization.jsonObject(with: Data((recorder.texts.first ?? "{}").utf8)) as? [String: String]
        #expect(reported == ["host": expectedHost, "path": path])
        connection.close()
        await recorder.waitTerminal()
    }

    @Test func refusedUpgradeFailsWithHandshake() async throws {
        let server = try await TransportTestServer.start(.reject)
        let (_, recorder) = startConnection(WebSocketOptions(url: server.url()))
        let failure = await recorder.waitTerminal()?.failure
        #expect(failure?.kind == .handshake, "\(String(describing: failure))")
        #expect(failure?.message.contains("127.0.0.1:\(server.port)") == true)
    }

    @Test func binaryFramesAreReportedNotDecoded() async throws {
        let server = try await TransportTestServer.start(.binary, extraArguments: ["--binary-size", "70000"])
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.wait { $0.contains(.text("done")) || $0.contains(where: \.isTerminal) })
        #expect(recorder.events.prefix(3) == [.opened, .binary(byteCount: 70000), .text("done")])
        connection.close()
        #expect(await recorder.waitTerminal() == .closed(code: 1000, reason: ""))
    }

    @Test func serverCloseCodeIsReported() async throws {
        let server = try await TransportTestServer.start(.close, extraArguments: ["--close-code", "4001", "--close-reason", "bye"])
        let (_, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitTerminal() == .closed(code: 4001, reason: "bye"))
        #expect(recorder.events == [.opened, .closed(code: 4001, reason: "bye")])
    }

    @Test func serverDropWithoutCloseIs1006() async throws {
        let server = try await TransportTestServer.start(.drop)
        let (_, recorder) = startConnection(WebSocketOptions(url: server.url()))
        let terminal = await recorder.waitTerminal()
        #expect(recorder.events.first == .opened)
        #expect(terminal?.closeCode == 1006, "\(String(describing: terminal))")
    }

    @Test func connectionRefusedFailsWithConnect() async {
        let port = unusedLoopbackPort()
        let (_, recorder) = startConnection(WebSocketOptions(url: "ws://127.0.0.1:\(port)/"))
        let failure = await recorder.waitTerminal()?.failure
        #expect(failure?.kind == .connect)
        #expect(failure?.message.contains("127.0.0.1:\(port)") == true)
        #expect(recorder.events.count == 1)
    }

    @Test func serverThatNeverUpgradesTimesOutAndTheSocketIsClosed() async throws {
        let server = try await TransportTestServer.start(.neverUpgrade)
        let (_, recorder) = startConnection(WebSocketOptions(url: server.url(), connectTimeout: 0.5))
        let failure = await recorder.waitTerminal()?.failure
        #expect(failure?.kind == .timeout)
        #expect(failure?.message.contains("timed out") == true)
        #expect(!hasEstablishedConnection(toPort: server.port))
    }

    @Test(arguments: ["http://127.0.0.1:80/", "ws://", "ws://[::1:80/", "ws://host:0/", "ws://host:99999/",
                      "ws://ho st/", "ws://user@host/", "ws://host/a b", "127.0.0.1:80", "ws://[notip]:80/"])
    func badURLsFailClearly(url: String) async {
        let (_, recorder) = startConnection(WebSocketOptions(url: url))
        let failure = await recorder.waitTerminal()?.failure
        #expect(failure?.kind == .badURL)
        #expect(failure?.message.contains(url) == true)
    }

    @Test func unknownHostFailsWithDNS() async {
        let (_, recorder) = startConnection(WebSocketOptions(url: "ws://no-such-host.invalid:8080/", connectTimeout: 60))
        let failure = await recorder.waitTerminal(timeout: 70)?.failure
        #expect(failure?.kind == .dns)
        #expect(failure?.message.contains("no-such-host.invalid") == true)
    }
}
