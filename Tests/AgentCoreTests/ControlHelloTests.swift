import TestSupport
@testable import AgentCore
import Foundation
import Synchronization
import Testing
import WCSSession

/// `hello` answered by the control server on its loop (`ControlServer.HelloResponder`) and the
/// CLI's `hello` in the same write as its request: nothing after a refused hello runs, the
/// answers come in order, scripts without hello and older clients are served as before.
@Suite struct ControlHelloTests {
    let dir = ScratchDirectory()
    var socketPath: String { dir.file("control.sock") }

    /// The verbs a handler ran.
    final class Ran: Sendable {
        private let verbs = Mutex<[String]>([])
        func append(_ verb: String) { verbs.withLock { $0.append(verb) } }
        var all: [String] { verbs.withLock { $0 } }
    }

    /// A server whose handler counts what it ran; `hello` accepts protocol 2 only.
    func server(ran: Ran) throws -> ControlServer {
        try ControlServer(path: socketPath, group: nil, hello: { request in
            request.args["protocol"]?.intValue == 2 ? .ok(["protocol": 2, "version": "test"])
                : .failure(code: "protocol_mismatch", message: "this daemon speaks 2")
        }) { request in
            ran.append(request.verb)
            return .ok(["verb": .string(request.verb)])
        }
    }

    @Test func aRefusedHelloRunsNothingSentWithIt() async throws {
        let ran = Ran()
        let server = try server(ran: ran)
        defer { server.close() }
        let path = socketPath
        // Blocking reads: on a thread of their own, so the server's tasks keep the cooperative pool.
        try await onThread {
            let raw = try RawLineClient(path: path)
            raw.send("{\"id\":1,\"verb\":\"hello\",\"args\":{\"protocol\":3}}\n{\"id\":2,\"verb\":\"reconnect\"}\n"
                     + "{\"id\":3,\"verb\":\"subscribe\"}\n")
            let refused = try #require(raw.readLine())
            #expect(refused["id"] == 1 && refused["code"] == "protocol_mismatch")
            for id in [2, 3] {
                let notRun = try #require(raw.readLine())
                #expect(notRun["id"] == .number(Double(id)) && notRun["ok"] == false && notRun["code"] == "protocol_mismatch")
                #expect(notRun["error"]?.stringValue?.contains("not run: this connection's hello was refused") == true)
            }
            // A hello that is accepted opens the connection again (a client may retry another version).
            raw.send("{\"id\":4,\"verb\":\"hello\",\"args\":{\"protocol\":2}}\n{\"id\":5,\"verb\":\"status\"}\n")
            #expect(raw.readLine()?["ok"] == true)
            #expect(raw.readLine() == ["id": 5, "ok": true, "result": ["verb": "status"]])
            #expect(ran.all == ["status"])
        }
    }

    @Test func anAcceptedHelloIsAnsweredFirstAndNeverReachesTheHandler() async throws {
        let ran = Ran()
        let server = try server(ran: ran)
        defer { server.close() }
        let path = socketPath
        // Blocking reads: on a thread of their own, so the server's tasks keep the cooperative pool.
        try await onThread {
            let raw = try RawLineClient(path: path)
            raw.send("{\"id\":1,\"verb\":\"hello\",\"args\":{\"protocol\":2}}\n{\"id\":2,\"verb\":\"status\"}\n")
            #expect(raw.readLine() == ["id": 1, "ok": true, "result": ["protocol": 2, "version": "test"]])
            #expect(raw.readLine() == ["id": 2, "ok": true, "result": ["verb": "status"]])
            // A script that never says hello is served as before.
            let script = try RawLineClient(path: path)
            script.send("{\"id\":9,\"verb\":\"calls\"}\n")
            #expect(script.readLine() == ["id": 9, "ok": true, "result": ["verb": "calls"]])
            #expect(ran.all.sorted() == ["calls", "status"])
        }
    }

    /// The real client: `helloWithNextRequest` puts both lines in one write and reports a refused
    /// hello as `hello()` does; the request is not run.
    @Test func theClientSendsHelloAlongAndReportsARefusal() async throws {
        let ran = Ran()
        let server = try server(ran: ran)
        defer { server.close() }
        let path = socketPath
        try await onThread {
            let client = try ControlClient.connect(path: path, timeout: 5)
            try client.helloWithNextRequest(protocolVersion: 2)
            #expect(try client.request("status", timeout: 5) == ["verb": "status"])
            #expect(try client.request("calls", timeout: 5) == ["verb": "calls"])  // hello went once
            let mismatched = try ControlClient.connect(path: path, timeout: 5)
            try mismatched.helloWithNextRequest(protocolVersion: 3)
            #expect(throws: ControlClientError.protocolMismatch("this daemon speaks 2")) {
                try mismatched.request("reconnect", timeout: 5)
            }
        }
        #expect(ran.all == ["status", "calls"])
    }

    /// The daemon's own table answers hello on the loop with the same words as before.
    @Test func theDaemonsHelloAnswersAtOnce() {
        let context = ControlContext(host: AgentHost(Agent(config: AgentConfig(server: "ws://127.0.0.1:9"),
                                                           tokenStore: TokenStore(directory: dir.path)) { _ in }),
                                     reloader: nil, protocolVersion: 2, peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        let accepted = ControlDispatcher.hello(ControlRequest(id: 1, verb: "hello", args: ["protocol": 2], peer: context.peer),
                                               context: context)
        #expect(accepted == .ok(["protocol": 2, "version": .string(AgentCore.version)]))
        let refused = ControlDispatcher.hello(ControlRequest(id: 1, verb: "hello", args: ["protocol": 1], peer: context.peer),
                                              context: context)
        guard case .failure(let code, let message) = refused else { Issue.record("accepted"); return }
        #expect(code == "protocol_mismatch" && message.contains("speaks control protocol 2; the client speaks 1"))
        #expect(ControlDispatcher.hello(ControlRequest(id: 1, verb: "hello", args: ["protocol": "x"], peer: context.peer),
                                        context: context) == .failure(code: "bad_request", message: "hello: \"protocol\" must be a number"))
    }
}
