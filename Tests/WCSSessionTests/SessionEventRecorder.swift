import Foundation
@testable import WCSSession

/// Collects a session's events so a test can wait for one that matches.
final class SessionEventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SessionEvent] = []
    private var task: Task<Void, Never>?

    init(_ session: WCSSession) {
        let stream = session.events
        task = Task { [weak self] in
            for await event in stream { self?.append(event) }
        }
    }

    deinit { task?.cancel() }

    private func append(_ event: SessionEvent) {
        lock.lock(); defer { lock.unlock() }
        events.append(event)
    }

    var all: [SessionEvent] {
        lock.lock(); defer { lock.unlock() }
        return events
    }

    /// Waits until an event matches (checking past events too); nil after `timeout` seconds.
    func first<T>(timeout: Double = 10, _ match: (SessionEvent) -> T?) async -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let hit = all.lazy.compactMap(match).first { return hit }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        events.removeAll()
    }
}

extension SessionEvent {
    var incomingCall: CallInfo? {
        if case .incomingCall(let c, _, _) = self { return c }
        return nil
    }

    /// The SDP offer an `.incomingCall` carried (nil for other events or a call without one).
    var incomingOffer: String? {
        if case .incomingCall(_, let offer, _) = self { return offer }
        return nil
    }

    var disconnectReason: DisconnectReason? {
        if case .disconnected(let r) = self { return r }
        return nil
    }

    func callStatus(_ callId: String, _ status: CallStatus) -> CallInfo? {
        if case .callStatus(let c) = self, c.callId == callId, c.status == status { return c }
        return nil
    }
}
