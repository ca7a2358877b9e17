// Fuzz harness: the SDP parser and offer/answer (AudioSDP), as the agent meets a remote offer
// (`setRemoteSDP` of an incoming call) or answer (an outgoing call). Runs on libFuzzer's one
// thread; built by scripts/fuzz.py.

import Foundation
@testable import AudioSDP

/// The capabilities the agent answers with (the values of the SDP unit tests).
private let local = LocalAudioCapabilities(
    iceUfrag: "wcsA", icePwd: "0123456789abcdefghijkl",
    fingerprint: SDPFingerprint(algorithm: "sha-256", bytes: Array(0..<32)))

/// Our offer for an outgoing call, that fuzzed answers are applied to.
private let ourOffer = makeOffer(local, sessionId: 1, version: 1)

/// One input is one SDP text. Checks: nothing traps; what parses serializes to text that parses
/// to the same serialization; an answer we make to an offer is SDP we can parse ourselves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).all, as: UTF8.self)

    if let session = try? SessionDescription(parsing: text) {
        let written = session.serialized()
        do {
            let again = try SessionDescription(parsing: written)
            fuzzCheck(again.serialized() == written, "serialize(parse(serialize(x))) differs from serialize(x)")
        } catch {
            fuzzCheck(false, "our serialization does not parse: \(error)\n\(written)")
        }
        _ = session.bundleGroups
        if let audio = try? AudioMediaDescription.firstAudio(in: session) {
            _ = audio.sha256Fingerprint
            for format in audio.formats { _ = audio.format(payloadType: format.payloadType) }
        }
    }

    if let (answer, _) = try? makeAnswer(to: text, local: local, sessionId: 2, version: 1) {
        do {
            _ = try SessionDescription(parsing: answer)
        } catch {
            fuzzCheck(false, "our answer does not parse: \(error)\n\(answer)")
        }
    }
    _ = try? applyAnswer(text, toOffer: ourOffer)
    return 0
}
