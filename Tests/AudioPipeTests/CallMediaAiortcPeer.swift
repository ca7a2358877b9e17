import Foundation

/// Tests/Fixtures/media/aiortc_peer.py, run through the ICE suites' JSON-lines fixture runner
/// (SIGKILLed by `stop()` or after 60 s at the latest).
enum CallMediaAiortcPeer {
    /// Starts the peer in `mode` ("offer" or "answer"), recording to `recording`, playing a
    /// `frequency` Hz tone for `seconds` once connected.
    static func start(mode: String, recording: String, seconds: Double = 3, frequency: Double = 440) throws -> ICEPythonFixture {
        // The runner looks in Fixtures/ice; the media fixtures live next to it.
        try ICEPythonFixture(script: "../media/aiortc_peer.py",
                             arguments: [mode, recording, "--seconds", String(seconds), "--frequency", String(frequency)])
    }
}

extension Dictionary where Key == String, Value == Any {
    /// A nested number, such as `self["inbound"]["packetsReceived"]`.
    func number(_ section: String, _ field: String) -> Double? {
        ((self[section] as? [String: Any])?[field] as? NSNumber)?.doubleValue
    }
}
