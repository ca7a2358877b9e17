import Foundation

/// Client of the emulator's HTTP control API on 127.0.0.1 (see Tests/Emulator/README.md).
/// Every call is synchronous and throws ``TestSupportError`` (`.http` for a 4xx/5xx answer).
public struct EmulatorControl: Sendable {
    /// The control API port.
    public let port: Int
    /// Per-request socket timeout in seconds.
    public var timeout: Double

    /// A client for the control API on `127.0.0.1:port`.
    public init(port: Int, timeout: Double = 10) {
        self.port = port
        self.timeout = timeout
    }

    // MARK: - Generic requests

    /// `GET path`; returns the decoded JSON answer.
    public func get(_ path: String) throws -> EmulatorJSON {
        try EmulatorJSON.parse(send("GET", path, nil))
    }

    /// `POST path` with a JSON object body; returns the decoded JSON answer.
    @discardableResult
    public func post(_ path: String, _ body: [String: EmulatorJSON] = [:]) throws -> EmulatorJSON {
        try EmulatorJSON.parse(send("POST", path, EmulatorJSON.object(body).serialized()))
    }

    /// `GET path` decoded into `type` (snake_case keys become camelCase).
    public func get<T: Decodable>(_ path: String, as type: T.Type) throws -> T {
        try decode(type, send("GET", path, nil))
    }

    private func send(_ method: String, _ path: String, _ body: Data?) throws -> Data {
        let answer = try LoopbackHTTP.request(port: port, method: method, path: path, body: body,
                                              timeout: timeout)
        guard answer.status == 200 else {
            let message = (try? EmulatorJSON.parse(answer.body))?["error"]?.stringValue
            throw TestSupportError.http(status: answer.status,
                                        message: message ?? String(decoding: answer.body, as: UTF8.self))
        }
        return answer.body
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw TestSupportError.badResponse("\(T.self): \(error)")
        }
    }

    private func query(_ items: [(String, String?)]) -> String {
        let present = items.compactMap { key, value in
            value.map { "\(key)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
        }
        return present.isEmpty ? "" : "?" + present.joined(separator: "&")
    }

    /// The target body for socket actions: a session id, a login, or nothing (every socket).
    private func target(login: String?, session: String?) -> [String: EmulatorJSON] {
        var body: [String: EmulatorJSON] = [:]
        if let login { body["login"] = .string(login) }
        if let session { body["session"] = .string(session) }
        return body
    }

    // MARK: - Queries

    /// `GET /sessions` (optionally only one login's).
    public func sessions(login: String? = nil) throws -> [EmulatorSession] {
        try get("/sessions" + query([("login", login)]), as: [EmulatorSession].self)
    }

    /// `GET /calls`, optionally filtered.
    public func calls(login: String? = nil, state: String? = nil, callId: String? = nil) throws -> [EmulatorCall] {
        try get("/calls" + query([("login", login), ("state", state), ("callId", callId)]),
                as: [EmulatorCall].self)
    }

    /// One call by id, or nil.
    public func call(_ callId: String) throws -> EmulatorCall? {
        try calls(callId: callId).first
    }

    /// `GET /pushes` (optionally only one login's).
    public func pushes(login: String? = nil) throws -> [EmulatorPush] {
        try get("/pushes" + query([("login", login)]), as: [EmulatorPush].self)
    }

    /// `GET /frames`: the frame log (secrets masked), optionally filtered.
    public func frames(login: String? = nil, message: String? = nil, direction: String? = nil) throws
        -> [EmulatorJSON]
    {
        try get("/frames" + query([("login", login), ("message", message), ("dir", direction)])).arrayValue ?? []
    }

    /// `GET /config`.
    public func config() throws -> EmulatorJSON { try get("/config") }

    // MARK: - SIP side

    /// `POST /ring`: an INVITE from `caller` to `login`. `offer` spoils the offer (none, null,
    /// object, non_utf8, deep); `noFinish` makes the emulator never send `finish` for the call;
    /// `callId` names the call (any text no call has; default per `--call-ids`).
    @discardableResult
    public func ring(login: String, caller: String = "1000", displayName: String? = nil,
                     source: String? = nil, ringTimeout: Double? = nil, fault: String? = nil,
                     offer: String? = nil, noFinish: Bool = false, callId: String? = nil) throws -> EmulatorRing
    {
        var body: [String: EmulatorJSON] = ["login": .string(login), "caller": .string(caller)]
        if let callId { body["callId"] = .string(callId) }
        if let fault { body["fault"] = .string(fault) }
        if let offer { body["offer"] = .string(offer) }
        if noFinish { body["no_finish"] = .bool(true) }
        if let displayName { body["display_name"] = .string(displayName) }
        if let source { body["source"] = .string(source) }
        if let ringTimeout { body["ring_timeout"] = .number(ringTimeout) }
        return try decode(EmulatorRing.self, post("/ring", body).serialized())
    }

    /// `POST /hangup`: the SIP peer hangs up (or cancels) the call.
    public func hangup(callId: String) throws {
        try post("/hangup", ["callId": .string(callId)])
    }

    /// `POST /callee`: how the callee `number` reacts to outgoing calls and transfers
    /// (`answer`, `busy`, `fail`, `noanswer` or `default`).
    public func setCallee(_ number: String, behavior: String, delay: Double? = nil) throws {
        var body: [String: EmulatorJSON] = ["number": .string(number), "behavior": .string(behavior)]
        if let delay { body["delay"] = .number(delay) }
        try post("/callee", body)
    }

    // MARK: - Faults

    /// `POST /expire-token` for every session of `login`.
    public func expireToken(login: String) throws {
        try post("/expire-token", ["login": .string(login)])
    }

    /// `POST /expire-token` for the session holding `token`.
    public func expireToken(token: String) throws {
        try post("/expire-token", ["token": .string(token)])
    }

    /// `POST /cut`: drops TCP without a close frame (a login's sockets, a session's, or all).
    public func cut(login: String? = nil, session: String? = nil) throws {
        try post("/cut", target(login: login, session: session))
    }

    /// `POST /close`: a clean server-side close with `code`.
    public func close(login: String? = nil, session: String? = nil, code: Int = 1000) throws {
        var body = target(login: login, session: session)
        body["code"] = .number(Double(code))
        try post("/close", body)
    }

    /// `POST /stop-pinging`: stop (`on`) or resume pings, for one login or everybody.
    public func stopPinging(login: String? = nil, _ on: Bool = true) throws {
        var body = target(login: login, session: nil)
        body["on"] = .bool(on)
        try post("/stop-pinging", body)
    }

    /// `POST /stop-answering`: the server goes silent (`on`) or speaks again.
    public func stopAnswering(_ on: Bool = true) throws {
        try post("/stop-answering", ["on": .bool(on)])
    }

    /// `POST /malformed`: sends `frame` as a raw text frame (or as a binary frame).
    public func sendMalformed(_ frame: String, binary: Bool = false, login: String? = nil,
                              session: String? = nil) throws
    {
        var body = target(login: login, session: session)
        body["frame"] = .string(frame)
        body["binary"] = .bool(binary)
        try post("/malformed", body)
    }

    /// `POST /send`: sends a well-formed frame `{"message": message, "data": data}`.
    public func sendFrame(_ message: String, data: [EmulatorJSON] = [nil], login: String? = nil,
                          session: String? = nil) throws
    {
        var body = target(login: login, session: session)
        body["message"] = .string(message)
        body["data"] = .array(data)
        try post("/send", body)
    }

    /// `POST /config`: changes run-time settings (e.g. `["ping_interval": 0.2]`).
    @discardableResult
    public func setConfig(_ changes: [String: EmulatorJSON]) throws -> EmulatorJSON {
        try post("/config", changes)
    }

    /// `POST /restart`: every session and token is lost; sockets close (or drop with `abort`).
    public func restart(abort: Bool = false) throws {
        try post("/restart", ["abort": .bool(abort)])
    }
}
