import AudioSDP
import Foundation

/// Fixture files in Tests/Fixtures/sdp and the local capabilities the SDP tests use.
enum SDPFixtures {
    /// Tests/Fixtures/sdp, found from this source file's location.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sdp")

    /// Every SDP fixture file name.
    static let allSDPFiles = [
        "aiortc-1.4-offer.sdp", "aiortc-1.4-answer.sdp", "chrome-audio-video-offer.sdp",
        "sip-gateway-g711-offer.sdp", "sip-plain-rtpavp-offer.sdp", "g729-only-offer.sdp",
    ]

    /// The text of fixture `name`.
    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// A parsed fixture.
    static func session(_ name: String) throws -> SessionDescription {
        try SessionDescription(parsing: text(name))
    }

    /// A fixed 32-byte SHA-256 fingerprint for our side.
    static let ourFingerprint = SDPFingerprint.sha256((0..<32).map { UInt8($0 * 7 & 0xFF) })

    /// Our default capabilities (Opus, PCMU, PCMA, telephone-event; no candidates).
    static func local(codecs: [AudioCodecKind] = [.opus, .pcmu, .pcma], direction: MediaDirection = .sendrecv) -> LocalAudioCapabilities {
        LocalAudioCapabilities(iceUfrag: "wcsA", icePwd: "0123456789abcdefghijkl", fingerprint: ourFingerprint,
                               codecs: codecs, direction: direction)
    }

    /// A minimal DTLS/ICE audio offer with the given m-line formats and extra media lines.
    static func offer(formats: String = "111 0 8 101", extraSession: [String] = [], media: [String]) -> String {
        (["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0"] + extraSession
            + ["m=audio 9 UDP/TLS/RTP/SAVPF \(formats)", "c=IN IP4 0.0.0.0"] + media)
            .joined(separator: "\r\n") + "\r\n"
    }

    /// The transport lines every valid test offer needs, with a chosen setup value.
    static func transport(setup: String = "actpass") -> [String] {
        ["a=ice-ufrag:rmt1", "a=ice-pwd:remotepasswordremotepass",
         "a=fingerprint:sha-256 " + (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":"),
         "a=setup:\(setup)", "a=rtcp-mux"]
    }

    /// rtpmap lines for opus 111, PCMU 0, PCMA 8 and telephone-event 101.
    static let standardRtpmaps = [
        "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1",
        "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
        "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16",
    ]
}
