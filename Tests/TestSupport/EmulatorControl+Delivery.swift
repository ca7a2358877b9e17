import Foundation

/// One call the emulator could not deliver to a client (`GET /undeliverable`).
public struct EmulatorUndeliverableCall: Decodable, Sendable, Equatable {
    public let callId: String
    public let login: String?
    /// `no_session`, `not_registered`, `push_failed` or `never_announced`.
    public let reason: String
    public let detail: String
    /// Epoch seconds.
    public let time: Double
}

/// `GET /undeliverable`: the emulator's own count of calls it could not deliver, and why.
public struct EmulatorUndeliverable: Decodable, Sendable, Equatable {
    public let count: Int
    public let byReason: [String: Int]
    public let calls: [EmulatorUndeliverableCall]
}

extension EmulatorControl {
    /// `GET /undeliverable` (optionally one login's, since epoch seconds `since`).
    public func undeliverable(login: String? = nil, since: Double? = nil) throws -> EmulatorUndeliverable {
        var items: [String] = []
        if let login { items.append("login=\(login.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? login)") }
        if let since { items.append("since=\(since)") }
        return try get("/undeliverable" + (items.isEmpty ? "" : "?" + items.joined(separator: "&")), as: EmulatorUndeliverable.self)
    }

    /// `POST /restart` with `sessions` "forget" (every session lost) or "keep" (kept detached);
    /// returns the epoch time just before the restart.
    @discardableResult
    public func restart(sessions: String, abort: Bool = false) throws -> Double {
        let answer = try post("/restart", ["abort": .bool(abort), "sessions": .string(sessions)])
        return answer["time"]?.doubleValue ?? Date().timeIntervalSince1970
    }
}
