import TestSupport
import Foundation
@testable import MainLoop
import Testing
@testable import WCSSession

/// Connection lifetimes: churn, abort, early close, release mid-flight, loop shutdown.
@Suite struct TransportLifecycleTests {
    @Test func fiftyConnectCloseCyclesLeaveNothingBehind() async throws {
        let server = try await TransportTestServer.start(.echo)
        let cores = WeakCores()
        for cycle in 0..<50 {
            let connection = WebSocketConnection(options: WebSocketOptions(url: server.url()))
            cores.add(connection.core)
            let recorder = EventRecorder(connection)
            connection.connect()
            connection.send("cycle \(cycle)")
            await recorder.wait { $0.contains(.text("cycle \(cycle)")) || $0.contains(where: \.isTerminal) }
            connection.close()
            let terminal = await recorder.waitTerminal()
            #expect(terminal == .closed(code: 1000, reason: ""), "cycle \(cycle)")
            if terminal != .closed(code: 1000, reason: "") { break }
        }
        #expect(await eventually { () async -> Bool in cores.aliveCount == 0 }, "\(cores.aliveCount) connection cores still alive")
    }

    @Test func manyConnectionsAtOnce() async throws {
        let server = try await TransportTestServer.start(.echo)
        let connections = (0..<20).map { _ in WebSocketConnection(options: WebSocketOptions(url: server.url())) }
        let recorders = connections.map(EventRecorder.init)
        for (index, connection) in connections.enumerated() {
            connection.connect()
            connection.send("from \(index)")
        }
        for (index, recorder) in recorders.enumerated() {
            #expect(await recorder.wait { _ in recorder.texts == ["from \(index)"] })
        }
        connections.forEach { $0.close() }
        for recorder in recorders {
            #expect(await recorder.waitTerminal() == .closed(code: 1000, reason: ""))
        }
    }

    @Test func abortDropsAnOpenConnectionWithoutCloseFrame() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitOpened())
        connection.abort()
        connection.send("dropped")
        #expect(await recorder.waitTerminal() == .closed(code: 1006, reason: "aborted"))
        #expect(recorder.events == [.opened, .closed(code: 1006, reason: "aborted")])
    }

    @Test func abortWhileConnectingCancels() async throws {
        let server = try await TransportTestServer.start(.neverUpgrade)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url(), connectTimeout: 30))
        try await Task.sleep(nanoseconds: 100_000_000)
        connection.abort()
        let failure = await recorder.waitTerminal()?.failure
        #expect(failure?.kind == .other)
        #expect(failure?.message.contains("abort()") == true)
    }

    @Test func closeBeforeConnectEndsTheStream() async {
        let connection = WebSocketConnection(options: WebSocketOptions(url: "ws://127.0.0.1:9/"))
        let recorder = EventRecorder(connection)
        connection.close()
        #expect(await recorder.waitTerminal()?.failure?.kind == .other)
        connection.connect() // ignored: already finished
        try? await Task.sleep(nanoseconds: 50_000_000)
        #expect(recorder.events.count == 1)
    }

    @Test func sendAfterCloseIsDroppedSilently() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        connection.send("before")
        #expect(await recorder.waitOpened())
        connection.close(code: 4100, reason: "client done")
        connection.send("after")
        #expect(await recorder.waitTerminal() == .closed(code: 4100, reason: "client done"))
        #expect(recorder.texts.allSatisfy { $0 == "before" })
        connection.send("after the end")
    }

    @Test func closeCompletesWhenThePeerNeverAnswers() async throws {
        let server = try await TransportTestServer.start(.deaf)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitOpened())
        connection.close(code: 4002, reason: "leaving")
        #expect(await recorder.waitTerminal(timeout: 30) == .closed(code: 4002, reason: "leaving"))
        #expect(!hasEstablishedConnection(toPort: server.port))
    }

    @Test func unsendableCloseCodesBecome1000() async throws {
        let server = try await TransportTestServer.start(.echo)
        let (connection, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitOpened())
        connection.close(code: 1006, reason: String(repeating: "é", count: 100))
        let terminal = await recorder.waitTerminal()
        #expect(terminal?.closeCode == 1000, "\(String(describing: terminal))")
        if case .closed(_, let reason) = terminal { #expect(reason.utf8.count <= 123) }
    }

    @Test func releasingTheConnectionMidFlightIsSafe() async throws {
        let server = try await TransportTestServer.start(.close)
        var recorder: EventRecorder?
        do {
            let connection = WebSocketConnection(options: WebSocketOptions(url: server.url()))
            recorder = EventRecorder(connection)
            connection.connect()
        } // the handle is gone; lws still holds the connection
        #expect(await recorder?.waitTerminal() == .closed(code: 4001, reason: "bye"))

        // Released while still resolving / connecting / open: nothing may crash.
        let echo = try await TransportTestServer.start(.echo)
        let cores = WeakCores()
        for index in 0..<20 {
            let connection = WebSocketConnection(options: WebSocketOptions(url: echo.url(host: index.isMultiple(of: 2) ? "localhost" : "127.0.0.1")))
            cores.add(connection.core)
            connection.connect()
            connection.send("fire and forget \(index)")
            if index.isMultiple(of: 3) { connection.abort() }
        }
        #expect(MainLoop.shared.sync { 1 } == 1)
        // Nobody can close the open ones any more; the server ending them must free them.
        try await Task.sleep(nanoseconds: 200_000_000)
        echo.stop()
        #expect(await eventually { () async -> Bool in cores.aliveCount == 0 }, "\(cores.aliveCount) connection cores still alive")
    }

    @Test func cancellingTheEventConsumerClosesWith1001() async throws {
        let server = try await TransportTestServer.start(.echo)
        let connection = WebSocketConnection(options: WebSocketOptions(url: server.url()))
        let opened = Locked(false)
        let consumer = Task {
            for await event in connection.events where event == .opened {
                opened.set(true)
            }
        }
        connection.connect()
        let deadline = Date().addingTimeInterval(20)
        while !opened.value && Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(opened.value)
        consumer.cancel()
        // The close makes the server end too; a new connection still works afterwards.
        let (probe, recorder) = startConnection(WebSocketOptions(url: server.url()))
        #expect(await recorder.waitOpened())
        probe.close()
    }

    @Test func stoppingAPrivateLoopEndsItsConnections() async throws {
        let server = try await TransportTestServer.start(.echo)
        let loop = MainLoop(name: "test-transport-loop")
        let (_, recorder) = startConnection(WebSocketOptions(url: server.url()), loop: loop)
        #expect(await recorder.waitOpened())
        loop.stop()
        let terminal = await recorder.waitTerminal()
        #expect(terminal?.closeCode == 1006, "\(String(describing: terminal))")

        let (_, lateRecorder) = startConnection(WebSocketOptions(url: server.url()), loop: loop)
        #expect(await lateRecorder.waitTerminal()?.failure?.kind == .other)
    }
}
