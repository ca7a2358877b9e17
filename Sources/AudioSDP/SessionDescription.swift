/// A session description (RFC 8866) as an ordered list of lines: the fixed `v=`, `o=` and `s=`
/// lines, the other session-level lines in order, then the media sections.
///
/// Nothing is dropped: unknown line types and attributes survive a parse and serialize, so
/// `SessionDescription(parsing: d.serialized())` equals `d`.
public struct SessionDescription: Sendable, Equatable, SDPLineContainer {
    /// The `o=` line.
    public var origin: SDPOrigin
    /// The `s=` line value (`-` by convention; may be empty when parsed from a lax peer).
    public var sessionName: String
    /// Session-level lines after `s=` and before the first `m=`, in order (`c=`, `t=`, `a=`, ...).
    public var lines: [SDPLine]
    /// The media sections in order.
    public var media: [MediaDescription]

    /// Creates a description from its parts.
    public init(origin: SDPOrigin, sessionName: String = "-", lines: [SDPLine] = [], media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.lines = lines
        self.media = media
    }

    /// Parses SDP text with `\r\n` or `\n` line endings. Throws an `SDPError` naming the line
    /// for anything that is not SDP.
    public init(parsing text: String) throws(SDPError) {
        self = try SDPParser.parse(text)
    }

    /// The SDP text with `\r\n` line endings (and a final `\r\n`).
    public func serialized() -> String {
        var out = "v=0\r\no=\(origin.value)\r\ns=\(sessionName)\r\n"
        for line in lines { out += "\(line)\r\n" }
        for section in media {
            out += "m=\(section.mediaLineValue)\r\n"
            for line in section.lines { out += "\(line)\r\n" }
        }
        return out
    }

    /// The identification tags of every `a=group:BUNDLE` line, one array per group.
    public var bundleGroups: [[String]] {
        attributeValues(named: "group").compactMap { value in
            let tokens = value.split(separator: " ").map(String.init)
            guard tokens.first == "BUNDLE" else { return nil }
            return Array(tokens.dropFirst())
        }
    }
}

/// One media section: the `m=` line and the lines after it up to the next `m=`.
public struct MediaDescription: Sendable, Equatable, SDPLineContainer {
    /// The media type: `audio`, `video`, `application`, ...
    public var mediaType: String
    /// The transport port; 0 marks a rejected or disabled section.
    public var port: Int
    /// The optional `/<number of ports>` suffix of the port.
    public var portCount: Int?
    /// The transport protocol, for example `UDP/TLS/RTP/SAVPF` or `RTP/AVP`.
    public var transportProtocol: String
    /// The format list (RTP payload type numbers for RTP protocols), as written.
    public var formats: [String]
    /// The lines after the `m=` line, in order.
    public var lines: [SDPLine]

    /// Creates a media section.
    public init(mediaType: String, port: Int, portCount: Int? = nil, transportProtocol: String,
                formats: [String], lines: [SDPLine] = []) {
        self.mediaType = mediaType
        self.port = port
        self.portCount = portCount
        self.transportProtocol = transportProtocol
        self.formats = formats
        self.lines = lines
    }

    /// Whether the transport is RTP-based (its formats are payload type numbers).
    public var isRTP: Bool { transportProtocol.uppercased().contains("RTP/") }

    /// The value of the `m=` line.
    public var mediaLineValue: String {
        let portText = portCount.map { "\(port)/\($0)" } ?? "\(port)"
        return ([mediaType, portText, transportProtocol] + formats).joined(separator: " ")
    }

    /// The `a=mid` value, if any.
    public var mid: String? { attributeValue(named: "mid") }
}
