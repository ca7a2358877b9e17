/// One RTP payload format of a media section: the `a=rtpmap` mapping (or the RFC 3551 static
/// mapping when there is none) and the `a=fmtp` parameters.
public struct RTPPayloadFormat: Sendable, Equatable {
    /// The payload type number (0-127).
    public var payloadType: UInt8
    /// The encoding name as written (`opus`, `PCMU`, `telephone-event`); compare case-insensitively.
    public var encodingName: String
    /// The RTP clock rate in Hz.
    public var clockRate: Int
    /// The channel count (1 when the rtpmap omits it).
    public var channels: Int
    /// The raw `a=fmtp` value after the payload type, if any.
    public var formatParameters: String?
    /// The fmtp split at `;` into `key=value` pairs. Keys are lowercased; an entry without `=`
    /// (such as the `0-16` of telephone-event) is a key with an empty value.
    public var parameters: [String: String]

    /// Creates a payload format; `parameters` are derived from `formatParameters`.
    public init(payloadType: UInt8, encodingName: String, clockRate: Int, channels: Int = 1, formatParameters: String? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.parameters = formatParameters.map(Self.splitParameters) ?? [:]
    }

    /// Whether this format is `name/clockRate` (name compared case-insensitively).
    public func matches(_ name: String, clockRate: Int) -> Bool {
        encodingName.lowercased() == name.lowercased() && self.clockRate == clockRate
    }

    /// Whether this is RFC 4733 `telephone-event` (any clock rate).
    public var isTelephoneEvent: Bool { encodingName.lowercased() == "telephone-event" }

    /// Splits an fmtp value such as `minptime=10; useinbandfec=1`.
    static func splitParameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in text.split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair[0].trimmingSpaces().lowercased()
            guard !key.isEmpty else { continue }
            result[key] = pair.count > 1 ? pair[1].trimmingSpaces() : ""
        }
        return result
    }

    /// The audio payload types RFC 3551 assigns statically: (name, clock rate, channels).
    static let staticAudioTypes: [UInt8: (String, Int, Int)] = [
        0: ("PCMU", 8000, 1), 3: ("GSM", 8000, 1), 4: ("G723", 8000, 1), 5: ("DVI4", 8000, 1),
        6: ("DVI4", 16000, 1), 7: ("LPC", 8000, 1), 8: ("PCMA", 8000, 1), 9: ("G722", 8000, 1),
        10: ("L16", 44100, 2), 11: ("L16", 44100, 1), 12: ("QCELP", 8000, 1), 13: ("CN", 8000, 1),
        14: ("MPA", 90000, 1), 15: ("G728", 8000, 1), 16: ("DVI4", 11025, 1), 17: ("DVI4", 22050, 1),
        18: ("G729", 8000, 1),
    ]
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
