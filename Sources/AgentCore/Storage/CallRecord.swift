import FoundationEssentials

/// How a call ended, from a fixed list (the `end_result` of a call record).
public enum CallEndResult: String, Codable, Sendable, CaseIterable {
    /// Answered and ended normally by either side.
    case completed
    /// An incoming call we declined.
    case declined
    /// The caller gave up (incoming) or we cancelled before an answer (outgoing).
    case canceled
    /// Nobody answered before the ring timeout.
    case noAnswer = "no_answer"
    /// The far end was busy, or we declined a call because we were busy.
    case busy
    /// Media or signaling failure (`info` says which).
    case failed
    /// The connection to the server was lost and the call did not survive it.
    case connectionLost = "connection_lost"
    /// A push announced the call, but it had ended before the session came back.
    case missedWhileAsleep = "missed_while_asleep"
    /// Another device answered.
    case answeredElsewhere = "answered_elsewhere"
    /// The agent stopped during the call (killed, crashed, power lost); recorded at its next start
    /// from the open-calls file, with the last time the agent was known to hold the call as `ended`.
    case interrupted
}

/// Media figures of a finished call.
public struct CallMediaRecord: Codable, Sendable, Equatable {
    public var codec: String?
    public var packetsSent: Int
    public var packetsReceived: Int
    public var packetsLost: Int
    public var jitterMs: Double
    public var rttMs: Double?

    public init(codec: String?, packetsSent: Int, packetsReceived: Int, packetsLost: Int, jitterMs: Double, rttMs: Double?) {
        self.codec = codec
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.jitterMs = jitterMs
        self.rttMs = rttMs
    }

    enum CodingKeys: String, CodingKey {
        case codec, packetsSent = "packets_sent", packetsReceived = "packets_received", packetsLost = "packets_lost"
        case jitterMs = "jitter_ms", rttMs = "rtt_ms"
    }
}

/// One finished call: a JSON line of `calls.jsonl` in the state directory.
public struct CallRecord: Codable, Sendable, Equatable {
    public var callId: String
    /// `incoming` or `outgoing`.
    public var direction: String
    public var caller: String?
    public var callee: String?
    public var displayName: String?
    public var started: Date
    public var answered: Date?
    public var ended: Date
    /// Seconds from answer to end (0 when never answered).
    public var duration: Double
    public var endResult: CallEndResult
    /// The server's or our reason, e.g. "Normal call clearing", "Failed by ICE error".
    public var info: String?
    public var media: CallMediaRecord?
    /// The WAV recording, when the sink records.
    public var recording: String?
    /// Door-station actions on the call (DTMF codes, time limit), in order; nil when none.
    public var actions: [CallActionRecord]?

    public init(callId: String, direction: String, caller: String?, callee: String?, displayName: String?,
                started: Date, answered: Date?, ended: Date, endResult: CallEndResult, info: String?,
                media: CallMediaRecord? = nil, recording: String? = nil)
    {
        self.callId = callId
        self.direction = direction
        self.caller = caller
        self.callee = callee
        self.displayName = displayName
        self.started = started
        self.answered = answered
        self.ended = ended
        self.duration = answered.map { max(0, (ended.timeIntervalSince($0) * 10).rounded() / 10) } ?? 0
        self.endResult = endResult
        self.info = info
        self.media = media
        self.recording = recording
    }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id", direction, caller, callee, displayName = "display_name", started, answered, ended
        case duration, endResult = "end_result", info, media, recording, actions
    }

    // Dates are ISO 8601 strings with milliseconds, whatever encoder writes the record.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date? {
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let d = CallRecordDates.parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return d
        }
        callId = try c.decode(String.self, forKey: .callId)
        direction = try c.decode(String.self, forKey: .direction)
        caller = try c.decodeIfPresent(String.self, forKey: .caller)
        callee = try c.decodeIfPresent(String.self, forKey: .callee)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        guard let started = try date(.started), let ended = try date(.ended) else {
            throw DecodingError.keyNotFound(CodingKeys.started, .init(codingPath: c.codingPath, debugDescription: "started/ended"))
        }
        self.started = started
        self.ended = ended
        answered = try date(.answered)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? 0
        endResult = try c.decode(CallEndResult.self, forKey: .endResult)
        info = try c.decodeIfPresent(String.self, forKey: .info)
        media = try c.decodeIfPresent(CallMediaRecord.self, forKey: .media)
        recording = try c.decodeIfPresent(String.self, forKey: .recording)
        actions = try c.decodeIfPresent([CallActionRecord].self, forKey: .actions)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(callId, forKey: .callId)
        try c.encode(direction, forKey: .direction)
        try c.encodeIfPresent(caller, forKey: .caller)
        try c.encodeIfPresent(callee, forKey: .callee)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encode(CallRecordDates.format(started), forKey: .started)
        try c.encodeIfPresent(answered.map(CallRecordDates.format), forKey: .answered)
        try c.encode(CallRecordDates.format(ended), forKey: .ended)
        try c.encode(duration, forKey: .duration)
        try c.encode(endResult, forKey: .endResult)
        try c.encodeIfPresent(info, forKey: .info)
        try c.encodeIfPresent(media, forKey: .media)
        try c.encodeIfPresent(recording, forKey: .recording)
        try c.encodeIfPresent(actions, forKey: .actions)
    }
}

/// The call journal: `calls.jsonl` in the state directory, one record per finished call, appended
/// so that a crash never leaves a torn line (see `AppendOnlyLog`).
public struct CallRecordStore: Sendable {
    public static let fileName = "calls.jsonl"
    private let log: AppendOnlyLog

    /// The journal's path.
    public var path: String { log.path }

    public init(directory: String) {
        log = AppendOnlyLog(path: PathName.joined(directory, Self.fileName), mode: 0o600)
    }

    /// Appends one record (dates as ISO 8601 with milliseconds).
    public func append(_ record: CallRecord) throws {
        try log.append(record)
    }

    /// Every readable record, oldest first (a torn last line is skipped).
    public func read() throws -> [CallRecord] {
        try log.read(CallRecord.self).records
    }
}

/// ISO 8601 dates with milliseconds, as call records store them.
package enum CallRecordDates {
    package static func format(_ date: Date) -> String { ISO8601Time.string(date) }

    /// With or without fractional seconds.
    package static func parse(_ text: String) -> Date? { ISO8601Time.date(text) }
}
