import AudioPipe

/// The WCS wording of media failures: the `info` text a call record and the `media_failed` event
/// carry ("Failed by ICE error", "Failed by DTLS fingerprint error", ...). The one place that maps
/// AudioPipe's typed `MediaFailure` to the words WCS uses. Values (plus whether libnice failed to
/// load), any thread.
extension MediaFailure {
    /// The WCS call-failure info string for this failure.
    public var wcsInfo: String {
        switch self {
        case .sdpRefused(let refusal): refusal.wcsInfo
        // Without libnice no ICE agent can exist: say why (the WCS words, then the loader's reason).
        case .iceSetup: NiceLibrary.unavailableReason.map { "Failed by ICE error: libnice unavailable: \($0)" } ?? "Failed by ICE error"
        case .iceFailed: "Failed by ICE error"
        case .dtlsFingerprintMismatch: "Failed by DTLS fingerprint error"
        case .dtlsFailed(.fingerprintMismatch): "Failed by DTLS fingerprint error"
        case .dtlsFailed, .dtlsTimeout, .srtpFailed, .mediaSetup: "Failed by DTLS error"
        case .sessionSetup: "Failed by session creation"
        }
    }
}

extension SDPNegotiationError {
    /// The WCS info string closest to this refusal of an offer or answer.
    public var wcsInfo: String {
        switch self {
        case .noCommonCodecs: "No common codecs"
        case .missingFingerprint, .noSHA256Fingerprint: "Failed by DTLS fingerprint error"
        case .noDTLS, .holdconnSetup, .invalidSetup: "Failed by DTLS error"
        case .missingICECredentials: "Failed by ICE error"
        case .malformed, .noAudioMedia, .audioRejected, .answerMismatch: "Failed by session creation"
        }
    }
}
