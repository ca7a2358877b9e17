import TestSupport
import AgentCore
import AudioPipe
import Testing

/// Every typed media failure gets the WCS info string it had before failures were typed.
@Suite struct MediaFailureWordingTests {
    @Test func mediaFailuresUseTheWCSWording() {
        #expect(MediaFailure.iceFailed.wcsInfo == "Failed by ICE error")
        #expect(MediaFailure.iceSetup("gathering failed").wcsInfo == "Failed by ICE error")
        #expect(MediaFailure.dtlsFingerprintMismatch.wcsInfo == "Failed by DTLS fingerprint error")
        #expect(MediaFailure.dtlsFailed(.fingerprintMismatch).wcsInfo == "Failed by DTLS fingerprint error")
        #expect(MediaFailure.dtlsFailed(.protocolFailure(reason: "bad certificate")).wcsInfo == "Failed by DTLS error")
        #expect(MediaFailure.dtlsTimeout.wcsInfo == "Failed by DTLS error")
        #expect(MediaFailure.srtpFailed(.badLength).wcsInfo == "Failed by DTLS error")
        #expect(MediaFailure.mediaSetup("opus").wcsInfo == "Failed by DTLS error")
        #expect(MediaFailure.sessionSetup("out of order").wcsInfo == "Failed by session creation")
    }

    @Test func sdpRefusalsUseTheWCSWording() {
        let cases: [(SDPNegotiationError, String)] = [
            (.noCommonCodecs, "No common codecs"),
            (.missingICECredentials, "Failed by ICE error"),
            (.missingFingerprint, "Failed by DTLS fingerprint error"),
            (.noSHA256Fingerprint(offered: ["sha-1"]), "Failed by DTLS fingerprint error"),
            (.noDTLS(transportProtocol: "RTP/AVP"), "Failed by DTLS error"),
            (.holdconnSetup, "Failed by DTLS error"),
            (.invalidSetup("actpass"), "Failed by DTLS error"),
            (.noAudioMedia, "Failed by session creation"),
            (.audioRejected, "Failed by session creation"),
            (.answerMismatch("x"), "Failed by session creation"),
        ]
        for (refusal, wording) in cases {
            #expect(MediaFailure.sdpRefused(refusal).wcsInfo == wording, "\(refusal)")
        }
    }

    @Test func refusedOffersAndAnswersReportTheSameFailure() {
        #expect(CallMediaError.negotiation(.noCommonCodecs).failure.wcsInfo == "No common codecs")
        #expect(CallMediaError.ice("no agent").failure.wcsInfo == "Failed by ICE error")
        #expect(CallMediaError.setup("DTLS: x").failure.wcsInfo == "Failed by DTLS error")
        #expect(CallMediaError.closed.failure.wcsInfo == "Failed by session creation")
    }
}
