/// A valid WebRTC audio SDP (offer or answer shape) for signaling tests; media is not exercised.
enum SampleSDP {
    static func audio(setup: String) -> String {
        [
            "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "a=group:BUNDLE 0", "a=msid-semantic: WMS",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 101", "c=IN IP4 0.0.0.0",
            "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:Zx9q", "a=ice-pwd:4GvLq0Yf1n2b3c4d5e6f7g8h",
            "a=fingerprint:sha-256 12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0",
            "a=setup:\(setup)", "a=mid:0", "a=sendrecv", "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16", "",
        ].joined(separator: "\r\n")
    }

    static let offer = audio(setup: "actpass")
    static let answer = audio(setup: "active")
}
