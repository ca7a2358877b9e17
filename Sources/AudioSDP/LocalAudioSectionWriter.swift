/// One payload format we put on our `m=audio` line.
enum LocalPayload {
    /// One of our codecs.
    case codec(AudioCodecKind)
    /// RFC 4733 telephone-event at the given clock rate.
    case telephoneEvent(clockRate: Int)
}

/// Builds our own session description and audio section from `LocalAudioCapabilities`.
struct LocalAudioSectionWriter {
    let local: LocalAudioCapabilities

    /// The telephone-event fmtp we advertise: DTMF 0-15 and flash (16).
    static let telephoneEventEvents = "0-16"

    /// Our audio section with the given payload types (in order), DTLS setup, mid and direction.
    func audioSection(payloads: [(UInt8, LocalPayload)], transportProtocol: String, setup: DTLSSetup,
                      mid: String?, direction: MediaDirection, rtcpMux: Bool) -> MediaDescription {
        let defaultCandidate = local.includeCandidates ? local.candidates.first { $0.component == 1 } : nil
        let connection = SDPConnection(address: defaultCandidate?.address ?? "0.0.0.0")
        let port = defaultCandidate?.port ?? 9
        var lines: [SDPLine] = [
            SDPLine(type: "c", value: connection.value),
            .attribute("rtcp", "\(port) \(connection.value)"),
            .attribute("ice-ufrag", local.iceUfrag),
            .attribute("ice-pwd", local.icePwd),
            .attribute("fingerprint", local.fingerprint.description),
            .attribute("setup", setup.rawValue),
        ]
        if let mid { lines.append(.attribute("mid", mid)) }
        lines.append(.attribute(direction.rawValue))
        if rtcpMux { lines.append(.attribute("rtcp-mux")) }
        for (pt, payload) in payloads {
            switch payload {
            case .codec(let kind):
                let channels = kind.channels > 1 ? "/\(kind.channels)" : ""
                lines.append(.attribute("rtpmap", "\(pt) \(kind.encodingName)/\(kind.clockRate)\(channels)"))
                if kind == .opus { lines.append(.attribute("fmtp", "\(pt) \(local.opusFormatParameters)")) }
            case .telephoneEvent(let clockRate):
                lines.append(.attribute("rtpmap", "\(pt) telephone-event/\(clockRate)"))
                lines.append(.attribute("fmtp", "\(pt) \(Self.telephoneEventEvents)"))
            }
        }
        if let ssrc = local.ssrc { lines.append(.attribute("ssrc", "\(ssrc) cname:\(local.cname)")) }
        if local.includeCandidates && !local.candidates.isEmpty {
            lines += local.candidates.map { SDPLine(type: "a", value: $0.attributeValue) }
            lines.append(.attribute("end-of-candidates"))
        }
        return MediaDescription(mediaType: "audio", port: port, transportProtocol: transportProtocol,
                                formats: payloads.map { String($0.0) }, lines: lines)
    }

    /// A session around `media`, with `a=group:BUNDLE` when `bundle` is given.
    static func session(sessionId: UInt64, version: UInt64, bundle: [String]?, media: [MediaDescription]) -> SessionDescription {
        var lines = [SDPLine(type: "t", value: "0 0")]
        if let bundle, !bundle.isEmpty { lines.append(.attribute("group", (["BUNDLE"] + bundle).joined(separator: " "))) }
        return SessionDescription(origin: SDPOrigin(sessionId: String(sessionId), sessionVersion: String(version)),
                                  lines: lines, media: media)
    }

    /// The answer to a section we do not use: port 0, its first format, its mid (RFC 3264 6).
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var lines = [SDPLine(type: "c", value: "IN IP4 0.0.0.0")]
        if let mid = offered.mid { lines.append(.attribute("mid", mid)) }
        if offered.isRTP { lines.append(.attribute("inactive")) }
        return MediaDescription(mediaType: offered.mediaType, port: 0, transportProtocol: offered.transportProtocol,
                                formats: Array(offered.formats.prefix(1)), lines: lines)
    }
}
