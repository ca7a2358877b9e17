@testable import AudioSDP
import Testing
import TestSupport

/// Replays the sdp fuzz corpus (Tests/Fuzz/sdp) through the normal build: what parses
/// serializes to SDP that parses; answers to offers are SDP we can read.
@Suite struct FuzzCorpusReplayTests {
    @Test func sessionDescriptions() throws {
        let inputs = try FuzzCorpus.inputs("sdp")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            let text = String(decoding: bytes, as: UTF8.self)
            if let session = try? SessionDescription(parsing: text) {
                #expect((try? SessionDescription(parsing: session.serialized())) != nil, "\(name)")
            }
            if let (answer, _) = try? makeAnswer(to: text, local: SDPFixtures.local(), sessionId: 2) {
                #expect((try? SessionDescription(parsing: answer)) != nil, "\(name)")
            }
        }
    }
}
