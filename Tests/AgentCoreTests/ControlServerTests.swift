import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import WCSSession

@Suite struct ControlServerTests {
    let dir = ScratchDirectory()
    var socketPath: String { dir.file("control.sock") }

    /// Answers `echo` with its args, `fail` with an error, `wait` after the gate opens, `open` opens it.
    static func handler(gate: Gate = Gate()) -> ControlServer.Handler {
        return { request in
            switch request.verb {
            case "echo": return .ok(["args": request.args, "uid": .number(Double(request.peer.uid))])
            case "fail": return .failure(code: "no_call", message: "there is no call to hang up")
            case "wait":
                await gate.wait()
                return .ok("waited")
            case "open":
                gate.open()
                return .ok("opened")
            default: return .failure(code: ControlErrorCode.unknownVerb, message: "unknown verb \(request.verb)")
            }
        }
    }

    @Test func requestResponseAndRemoteErrors() async throws {
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        defer { server.close() }
        #expect(permissions(socketPath) == 0o600)
        let path = socketPath
        try await onThread {
            let client = try ControlClient.connect(path: path, timeout: 5)
            let result = try client.request("echo", args: ["n": 1, "s": "x"], timeout: 20)
            #expect(result["args"] == ["n": 1, "s": "x"])
            #expect(result["uid"]?.intValue == Int(geteuid()))
            #expect(throws: ControlClientError.remote(code: "no_call", message: "there is no call to hang up")) {
                try client.request("fail", timeout: 20)
            }
            // The connection survives an error response.
            #expect(try client.request("echo", timeout: 20)["args"] == [:])
        }
    }

    @Test func twentyConcurrentClients() async throws {
        let server = try ControlServer(path: socketPath, group: nil, handler: { request in
            try? await Task.sleep(nanoseconds: UInt64.random(in: 0...20_000_000))
            return .ok(["echo": request.args["n"] ?? .null])
        })
        defer { server.close() }
        let path = socketPath
        let totals = try await withThrowingTaskGroup(of: Int.self) { group in
            for clientNumber in 0..<20 {
                group.addTask {
                    try await onThread {
                        let client = try ControlClient.connect(path: path, timeout: 10)
                        var matched = 0
                        for n in 0..<10 {
                            let value = clientNumber * 100 + n
                            let result = try client.request("echo", args: ["n": .number(Double(value))], timeout: 30)
                            if result["echo"]?.intValue == value { matched += 1 }
                        }
                        return matched
                    }
                }
            }
            var sum = 0
            for try await matched in group { sum += matched }
            return sum
        }
        #expect(totals == 200)
    }

    @Test func responsesGoOutInOrderOfCompletion() async throws {
        let gate = Gate()
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler(gate: gate))
        defer { server.close() }
        let path = socketPath
        let ids = try await onThread { () -> [JSONValue] in
            let raw = try RawLineClient(path: path)
            raw.send("{\"id\": 1, \"verb\": \"wait\"}\n{\"id\": \"two\", \"verb\": \"echo\"}\n")
            var seen: [JSONValue] = []
            if let first = raw.readLine() { seen.append(first["id"] ?? .null) }
            // Request 1 can only finish after this third request opens the gate.
            raw.send("{\"id\": 3, \"verb\": \"open\"}\n")
            for _ in 0..<2 { if let next = raw.readLine() { seen.append(next["id"] ?? .null) } }
            return seen
        }
        #expect(ids.first == "two")
        #expect(Set(ids.dropFirst()) == [1, 3])
    }

    @Test func malformedLinesGetAnErrorAndTheConnectionStays() async throws {
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        defer { server.close() }
        let path = socketPath
        let replies = try await onThread { () -> [JSONValue?] in
            let raw = try RawLineClient(path: path)
            raw.send("this is not json\n")
            let first = raw.readLine()
            raw.send("[1,2]\n{\"id\": 7}\n{\"id\": 8, \"verb\": \"echo\", \"args\": 5}\n{\"id\": true, \"verb\": \"echo\"}\n\n")
            let more = (0..<4).map { _ in raw.readLine() }
            raw.send("{\"id\": 9, \"verb\": \"echo\"}\r\n")
            return [first] + more + [raw.readLine()]
        }
        #expect(replies[0]?["id"] == .null)
        #expect(replies[0]?["ok"] == false)
        #expect(replies[0]?["code"] == .string(ControlErrorCode.badRequest))
        #expect(replies[1]?["id"] == .null)
        #expect(replies[2]?["id"] == 7)
        #expect(replies[2]?["error"]?.stringValue?.hasPrefix("missing verb") == true)
        #expect(replies[3]?["id"] == 8)
        #expect(replies[3]?["error"] == "args must be a JSON object")
        #expect(replies[4]?["id"] == .null)
        #expect(replies[5]?["id"] == 9)
        #expect(replies[5]?["ok"] == true)
    }

    @Test func subscribersReceiveBroadcastEvents() async throws {
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        defer { server.close() }
        let path = socketPath
        let subscribers = try (0..<3).map { _ in try ControlClient.connect(path: path, timeout: 5) }
        let bystander = try ControlClient.connect(path: path, timeout: 5)
        let boxes = subscribers.map { UncheckedBox($0) }
        try await onThread { for box in boxes { try box.value.subscribe(timeout: 20) } }
        #expect(server.subscriberCount == 3)

        #expect(server.broadcast(["type": "incoming_call", "callId": "c1"]) == 3)
        #expect(server.broadcast(["type": "hangup", "callId": "c1"]) == 3)
        let received = try await onThread {
            try boxes.map { box in [try box.value.nextEvent(timeout: 20), try box.value.nextEvent(timeout: 20)] }
        }
        for events in received {
            #expect(events == [["type": "incoming_call", "callId": "c1"], ["type": "hangup", "callId": "c1"]])
        }
        let bystanderBox = UncheckedBox(bystander)
        #expect(try await onThread { try bystanderBox.value.request("echo", timeout: 20)["args"] } == [:])
        // Events that arrive while a request waits are kept for nextEvent.
        server.broadcast(["type": "tick"])
        let first = boxes[0]
        let (answer, event) = try await onThread {
            (try first.value.request("echo", args: ["k": 1], timeout: 20), try first.value.nextEvent(timeout: 20))
        }
        #expect(answer["args"] == ["k": 1])
        #expect(event == ["type": "tick"])
    }

    @Test func aClientThatDoesNotReadIsDroppedWithoutBlockingOthers() async throws {
        let server = try ControlServer(path: socketPath, group: nil, maximumQueuedBytes: 8192, handler: Self.handler())
        defer { server.close() }
        let path = socketPath
        let stuck = try RawLineClient(path: path)
        stuck.send("{\"id\": 1, \"verb\": \"subscribe\"}\n")
        #expect(stuck.readLine()?["ok"] == true)
        let payload = JSONValue.string(String(repeating: "x", count: 2000))
        var sent = 0
        while server.subscriberCount > 0 && sent < 100_000 {
            server.broadcast(["type": "bulk", "payload": payload])
            sent += 1
            if sent % 50 == 0 { usleep(1000) }
        }
        #expect(server.subscriberCount == 0)
        // The server still serves new clients and delivers events to them.
        let fresh = UncheckedBox(try ControlClient.connect(path: path, timeout: 5))
        try await onThread { try fresh.value.subscribe(timeout: 20) }
        server.broadcast(["type": "after"])
        #expect(try await onThread { try fresh.value.nextEvent(timeout: 20) } == ["type": "after"])
        _ = stuck
    }

    @Test func staleSocketFileIsReplaced() async throws {
        // A socket file left by a crashed daemon: bound, never unlinked, nobody listening.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try UnixSocketAddress(socketPath)
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)
        close(fd)
        #expect(throws: ControlClientError.daemonNotRunning(socketPath)) { try ControlClient.connect(path: socketPath, timeout: 2) }
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        defer { server.close() }
        let path = socketPath
        #expect(try await onThread { try ControlClient.connect(path: path, timeout: 5).request("echo", timeout: 20)["args"] } == [:])
    }

    @Test func secondServerOnTheSamePathIsAlreadyRunning() async throws {
        let first = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        defer { first.close() }
        #expect(throws: ControlServerError.alreadyRunning(socketPath)) {
            try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        }
        // The first one is unaffected.
        let path = socketPath
        #expect(try await onThread { try ControlClient.connect(path: path, timeout: 5).request("echo", timeout: 20)["args"] } == [:])
    }

    @Test func aRegularFileAtThePathIsNotRemoved() {
        dir.write("control.sock", "precious")
        #expect(throws: ControlServerError.notASocket(socketPath)) {
            try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        }
        #expect(contents(socketPath) == "precious")
    }

    @Test func clientToAMissingSocketSaysTheDaemonIsNotRunning() {
        #expect(throws: ControlClientError.daemonNotRunning(socketPath)) { try ControlClient.connect(path: socketPath, timeout: 2) }
        #expect(ControlClientError.daemonNotRunning(socketPath).description == "wcs-agent is not running (nothing listens on \(socketPath))")
    }

    @Test func closeRemovesTheSocketAndDisconnectsClients() async throws {
        let server = try ControlServer(path: socketPath, group: nil, handler: Self.handler())
        let client = UncheckedBox(try ControlClient.connect(path: socketPath, timeout: 5))
        try await onThread { try client.value.subscribe(timeout: 20) }
        server.close()
        server.close()  // idempotent
        #expect(access(socketPath, F_OK) != 0)
        await #expect(throws: ControlClientError.disconnected) { try await onThread { try client.value.nextEvent(timeout: 20) } }
    }

    @Test func groupSocketIsGroupReadable() throws {
        let server = try ControlServer(path: socketPath, group: "nogroup", handler: Self.handler())
        defer { server.close() }
        var info = stat()
        #expect(stat(socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == PeerAuthorizer.groupID(named: "nogroup"))
        #expect(throws: ControlServerError.unknownGroup("no-such-group-wcs")) {
            try ControlServer(path: dir.file("other.sock"), group: "no-such-group-wcs", handler: Self.handler())
        }
    }
}

/// Moves a non-Sendable value (a `ControlClient`) to a test thread; the test uses it from one
/// thread at a time.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
