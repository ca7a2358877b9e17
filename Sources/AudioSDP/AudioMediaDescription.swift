/// An `a=ssrc:<ssrc> <attribute>[:<value>]` line (RFC 5576).
public struct SSRCAttribute: Sendable, Equatable {
    /// The synchronization source.
    public var ssrc: UInt32
    /// The source attribute name, such as `cname` or `msid`.
    public var attribute: String
    /// The source attribute value, if any.
    public var value: String?

    /// Creates an ssrc line.
    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }
}

/// An `a=rtcp:<port> [<nettype> <addrtype> <address>]` line (RFC 3605).
public struct RTCPAttribute: Sendable, Equatable {
    /// The RTCP port.
    public var port: Int
    /// The RTCP address, if given.
    public var connection: SDPConnection?

    /// Creates an rtcp line.
    public init(port: Int, connection: SDPConnection? = nil) {
        self.port = port
        self.connection = connection
    }
}

/// The audio-relevant reading of one `m=audio` section, with the session-level fallbacks applied
/// (a media-level attribute wins over the session-level one).
public struct AudioMediaDescription: Sendable, Equatable {
    /// The index of the section among the description's media sections.
    public let mediaIndex: Int
    /// The `m=` port (0: rejected).
    public let port: Int
    /// The `m=` transport protocol.
    public let transportProtocol: String
    /// The payload types of the `m=` line, in order.
    public let payloadTypes: [UInt8]
    /// The payload formats in `m=` order; payload types with neither an rtpmap nor a static
    /// RFC 3551 mapping are left out.
    public let formats: [RTPPayloadFormat]
    /// The direction attribute (media, else session, else sendrecv).
    public let direction: MediaDirection
    /// The `a=mid` value.
    public let mid: String?
    /// The tags of the `a=group:BUNDLE` line that contains `mid`, if any.
    public let bundleGroup: [String]?
    /// Whether `a=rtcp-mux` is present.
    public let rtcpMux: Bool
    /// The `a=rtcp` line, if any.
    public let rtcp: RTCPAttribute?
    /// `a=ice-ufrag` (media, else session).
    public let iceUfrag: String?
    /// `a=ice-pwd` (media, else session).
    public let icePwd: String?
    /// The tokens of `a=ice-options` (media, else session), for example `["trickle"]`.
    public let iceOptions: [String]
    /// Whether `a=ice-lite` is present (session level, or media level from lax peers).
    public let iceLite: Bool
    /// Every `a=fingerprint` (media-level ones if any, else session-level), any hash.
    public let fingerprints: [SDPFingerprint]
    /// `a=setup` (media, else session).
    public let setup: DTLSSetup?
    /// The `a=candidate` lines of this section.
    public let candidates: [ICECandidateLine]
    /// Whether `a=end-of-candidates` is present (media or session level).
    public let endOfCandidates: Bool
    /// The `a=ssrc` lines.
    public let ssrcs: [SSRCAttribute]
    /// `a=ptime` in milliseconds (media, else session).
    public let ptime: Int?
    /// `a=maxptime` in milliseconds (media, else session).
    public let maxptime: Int?
    /// The `c=` address (media, else session).
    public let connectionAddress: String?

    /// Reads media section `mediaIndex` of `session`, which must be an `m=audio` section.
    /// Throws an `SDPError` naming the line for malformed audio-relevant attributes.
    public init(session: SessionDescription, mediaIndex: Int) throws(SDPError) {
        guard session.media.indices.contains(mediaIndex) else {
            throw SDPError(line: nil, text: "", reason: "no media section \(mediaIndex)")
        }
        let media = session.media[mediaIndex]
        guard media.mediaType == "audio" else {
            throw SDPError(line: nil, text: "m=" + media.mediaLineValue, reason: "not an audio section")
        }
        let reader = AttributeReader(session: session, media: media)
        self.mediaIndex = mediaIndex
        port = media.port
        transportProtocol = media.transportProtocol
        payloadTypes = media.isRTP ? media.formats.compactMap { UInt8($0) } : []
        formats = try reader.payloadFormats(for: payloadTypes)
        direction = reader.direction()
        let mid = media.mid
        self.mid = mid
        bundleGroup = session.bundleGroups.first { group in mid.map(group.contains) ?? false }
        rtcpMux = media.hasAttribute(named: "rtcp-mux")
        rtcp = try reader.rtcp()
        iceUfrag = reader.value("ice-ufrag")
        icePwd = reader.value("ice-pwd")
        iceOptions = reader.value("ice-options")?.split(separator: " ").map(String.init) ?? []
        iceLite = session.hasAttribute(named: "ice-lite") || media.hasAttribute(named: "ice-lite")
        fingerprints = try reader.fingerprints()
        setup = try reader.setup()
        candidates = try media.attributeLines(named: "candidate").map { line throws(SDPError) in
            try ICECandidateLine(parsing: line.attribute?.value ?? "", lineNumber: line.lineNumber)
        }
        endOfCandidates = media.hasAttribute(named: "end-of-candidates") || session.hasAttribute(named: "end-of-candidates")
        ssrcs = try reader.ssrcs()
        ptime = try reader.milliseconds("ptime")
        maxptime = try reader.milliseconds("maxptime")
        connectionAddress = (media.connection ?? session.connection)?.address
    }

    /// The first `m=audio` section with a non-zero port, or `nil` if there is none.
    public static func firstAudio(in session: SessionDescription) throws(SDPError) -> AudioMediaDescription? {
        guard let index = session.media.firstIndex(where: { $0.mediaType == "audio" && $0.port != 0 }) else { return nil }
        return try AudioMediaDescription(session: session, mediaIndex: index)
    }

    /// The format for payload type `payloadType`, if the section has one.
    public func format(payloadType: UInt8) -> RTPPayloadFormat? {
        formats.first { $0.payloadType == payloadType }
    }

    /// The first SHA-256 fingerprint, if any.
    public var sha256Fingerprint: SDPFingerprint? {
        fingerprints.first { $0.algorithm == "sha-256" }
    }
}

/// Reads attributes of one media section with session-level fallback.
private struct AttributeReader {
    let session: SessionDescription
    let media: MediaDescription

    /// The media-level line(s) named `name` if any, else the session-level ones.
    func lines(_ name: String) -> [SDPLine] {
        let own = media.attributeLines(named: name)
        return own.isEmpty ? session.attributeLines(named: name) : own
    }

    func value(_ name: String) -> String? {
        lines(name).first.map { $0.attribute?.value ?? "" }
    }

    func direction() -> MediaDirection {
        for container in [media.lines, session.lines] {
            for line in container {
                if let name = line.attribute?.name, let direction = MediaDirection(rawValue: name.lowercased()) {
                    return direction
                }
            }
        }
        return .sendrecv
    }

    func payloadFormats(for payloadTypes: [UInt8]) throws(SDPError) -> [RTPPayloadFormat] {
        var mapped: [UInt8: RTPPayloadFormat] = [:]
        for line in media.attributeLines(named: "rtpmap") {
            let (pt, rest) = try payloadTypeAndRest(line)
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, let clock = Int(parts[1]), clock > 0 else {
                throw line.error("rtpmap needs <name>/<clock rate>[/<channels>]")
            }
            var channels = 1
            if parts.count == 3 {
                guard let count = Int(parts[2]), count > 0 else { throw line.error("rtpmap channel count is not a number") }
                channels = count
            }
            if mapped[pt] == nil {
                mapped[pt] = RTPPayloadFormat(payloadType: pt, encodingName: String(parts[0]), clockRate: clock, channels: channels)
            }
        }
        var fmtps: [UInt8: String] = [:]
        for line in media.attributeLines(named: "fmtp") {
            let (pt, rest) = try payloadTypeAndRest(line)
            if fmtps[pt] == nil { fmtps[pt] = rest }
        }
        return payloadTypes.compactMap { pt in
            var format = mapped[pt]
            if format == nil, let known = RTPPayloadFormat.staticAudioTypes[pt] {
                format = RTPPayloadFormat(payloadType: pt, encodingName: known.0, clockRate: known.1, channels: known.2)
            }
            if let fmtp = fmtps[pt] {
                format?.formatParameters = fmtp
                format?.parameters = RTPPayloadFormat.splitParameters(fmtp)
            }
            return format
        }
    }

    /// Splits `96 opus/48000/2` into the payload type and the rest.
    private func payloadTypeAndRest(_ line: SDPLine) throws(SDPError) -> (UInt8, String) {
        let value = line.attribute?.value ?? ""
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, let pt = UInt8(first), pt < 128 else {
            throw line.error("expected a payload type 0-127")
        }
        return (pt, parts.count > 1 ? parts[1].trimmingSpaces() : "")
    }

    func rtcp() throws(SDPError) -> RTCPAttribute? {
        guard let line = media.attributeLines(named: "rtcp").first else { return nil }
        let fields = (line.attribute?.value ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let first = fields.first, let port = Int(first), (0...65535).contains(port), fields.count == 1 || fields.count == 4 else {
            throw line.error("rtcp needs <port> [IN IP4 <address>]")
        }
        let connection = fields.count == 4 ? SDPConnection(networkType: fields[1], addressType: fields[2], address: fields[3]) : nil
        return RTCPAttribute(port: port, connection: connection)
    }

    func fingerprints() throws(SDPError) -> [SDPFingerprint] {
        try lines("fingerprint").map { line throws(SDPError) in
            try SDPFingerprint(parsing: line.attribute?.value ?? "", lineNumber: line.lineNumber)
        }
    }

    func setup() throws(SDPError) -> DTLSSetup? {
        guard let line = lines("setup").first else { return nil }
        guard let setup = DTLSSetup(rawValue: (line.attribute?.value ?? "").lowercased()) else {
            throw line.error("setup must be active, passive, actpass or holdconn")
        }
        return setup
    }

    func ssrcs() throws(SDPError) -> [SSRCAttribute] {
        try media.attributeLines(named: "ssrc").map { line throws(SDPError) in
            let value = line.attribute?.value ?? ""
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, let ssrc = UInt32(parts[0]) else {
                throw line.error("ssrc needs <32-bit ssrc> <attribute>[:<value>]")
            }
            let source = SDPAttribute(attributeLineValue: String(parts[1]))
            return SSRCAttribute(ssrc: ssrc, attribute: source.name, value: source.value)
        }
    }

    /// `a=ptime:20` or the lax `a=ptime:20.0`, in whole milliseconds.
    func milliseconds(_ name: String) throws(SDPError) -> Int? {
        guard let line = lines(name).first else { return nil }
        let text = (line.attribute?.value ?? "").trimmingSpaces()
        if let value = Int(text), value > 0 { return value }
        if let value = Double(text), value > 0, value < 10_000 { return Int(value.rounded()) }
        throw line.error("\(name) is not a positive number of milliseconds")
    }
}
