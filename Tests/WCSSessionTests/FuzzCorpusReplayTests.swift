@testable import WCSSession
import Foundation
import Testing
import TestSupport

/// Replays the wcs-message fuzz corpus (Tests/Fuzz/wcs-message; each input starts with the
/// harness's split byte) through the normal build: real emulator frames decode, nothing traps.
@Suite struct FuzzCorpusReplayTests {
    @Test func serverFrames() throws {
        let inputs = try FuzzCorpus.inputs("wcs-message")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            let decoded = try? ServerMessageDecoder.decode(text)
            if name.hasPrefix("emulator-") {
                #expect(decoded != nil, "\(name) does not decode")
            }
        }
    }
}
