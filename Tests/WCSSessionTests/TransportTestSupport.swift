import TestSupport
import Foundation
import MainLoop
@testable import WCSSession

/// Collects the events of one connection on a background task, for polling from tests.
final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [WebSocketEvent] = []
    private var task: Task<Void, Never>?

    init(_ connection: WebSocketConnection) {
        let stream = connection.events
        task = Task { [self] in
            for await event in stream { record(event) }
        }
    }

    private func record(_ event: WebSocketEvent) {
        lock.lock(); defer { lock.unlock() }
        recorded.append(event)
    }

    /// Everything recorded so far.
    var events: [WebSocketEvent] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    /// The received text messages, in order.
    var texts: [String] {
        events.compactMap { if case .text(let text) = $0 { text } else { nil } }
    }

    /// The terminal event, if it arrived.
    var terminal: WebSocketEvent? { events.last(where: \.isTerminal) }

    /// Waits until `condition` holds on the recorded events; the timeout only prevents hangs.
    @discardableResult
    func wait(timeout: Double = 20, until condition: ([WebSocketEvent]) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { () async -> Bool in condition(events) }
    }

    /// Waits for `.opened` (or an early terminal event); true if opened.
    func waitOpened(timeout: Double = 20) async -> Bool {
        await wait(timeout: timeout) { $0.contains(.opened) || $0.contains(where: \.isTerminal) }
        return events.contains(.opened)
    }

    /// Waits for the terminal event and returns it.
    @discardableResult
    func waitTerminal(timeout: Double = 20) async -> WebSocketEvent? {
        await wait(timeout: timeout) { $0.contains(where: \.isTerminal) }
        return terminal
    }

    deinit { task?.cancel() }
}

/// Creates a connection with a recorder attached and starts connecting.
func startConnection(_ options: WebSocketOptions, loop: MainLoop = .shared) -> (WebSocketConnection, EventRecorder) {
    let connection = WebSocketConnection(options: options, loop: loop)
    let recorder = EventRecorder(connection)
    connection.connect()
    return (connection, recorder)
}

extension WebSocketEvent {
    /// The error of a `.failed` event.
    var failure: WebSocketError? {
        if case .failed(let error) = self { error } else { nil }
    }

    /// The code of a `.closed` event.
    var closeCode: Int? {
        if case .closed(let code, _) = self { code } else { nil }
    }
}

/// Weak references to connection cores, to check that finished connections are freed.
final class WeakCores: @unchecked Sendable {
    private struct Entry { weak var core: ConnectionCore? }
    private let lock = NSLock()
    private var entries: [Entry] = []

    func add(_ core: ConnectionCore) {
        lock.lock(); defer { lock.unlock() }
        entries.append(Entry(core: core))
    }

    var aliveCount: Int {
        lock.lock(); defer { lock.unlock() }
        return entries.filter { $0.core != nil }.count
    }
}


/// A tiny locked value for tests.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock(); defer { lock.unlock() }
        return stored
    }
    func set(_ value: Value) {
        lock.lock(); defer { lock.unlock() }
        stored = value
    }
}

