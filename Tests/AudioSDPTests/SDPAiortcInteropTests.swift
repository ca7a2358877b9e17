@testable import AudioSDP
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Negotiation against a real aiortc 1.4 (Tests/Fixtures/sdp/aiortc_peer.py) over stdin/stdout.
@Suite struct SDPAiortcInteropTests {
    /// A running aiortc_peer.py; killed with SIGKILL after 60 s at the latest.
    private final class Peer {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        private var watchdog: DispatchWorkItem?

        init(mode: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [SDPFixtures.directory.appendingPathComponent("aiortc_peer.py").path, mode]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let pid = process.processIdentifier
            let item = DispatchWorkItem { kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: item)
            watchdog = item
        }

        /// Reads stdout until `marker` (returns the text before it) or EOF (returns everything).
        func read(until marker: String) -> String {
            var text = ""
            while !text.contains(marker) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return text }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return String(text[..<text.range(of: marker)!.lowerBound])
        }

        /// Writes `text` to stdin and closes it.
        func send(_ text: String) throws {
            try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
            try input.fileHandleForWriting.close()
        }

        /// Waits for exit; returns the status, the rest of stdout and stderr.
        func finish() -> (status: Int32, output: String, errors: String) {
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            watchdog?.cancel()
            return (process.terminationStatus, rest, errorText)
        }
    }

    /// Runs offer-then-accept: aiortc offers, `answer` builds our reply, aiortc applies it.
    private func aiortcOffer(answeredBy answer: (String) throws -> String) throws -> (status: Int32, output: String, errors: String) {
        let peer = try Peer(mode: "offer-then-accept")
        let offer = peer.read(until: "--END--\n")
        do {
            try peer.send(try answer(offer))
        } catch {
            kill(peer.process.processIdentifier, SIGKILL)
            _ = peer.finish()
            throw error
        }
        return peer.finish()
    }

    @Test func aiortcAcceptsOurAnswerToItsLiveOffer() throws {
        var negotiated: NegotiatedAudio?
        let result = try aiortcOffer { offer in
            let answer = try makeAnswer(to: offer, local: SDPFixtures.local())
            negotiated = answer.negotiated
            return answer.sdp
        }
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.output.contains("ACCEPTED"))
        #expect(negotiated?.codec.kind == .opus)
        #expect(negotiated?.dtlsRole == .client)
        #expect(negotiated?.remoteCandidates.isEmpty == false)
    }

    @Test func aiortcAcceptsOurAnswerWithCandidatesAndSsrc() throws {
        var local = SDPFixtures.local(codecs: [.pcmu, .opus])
        local.candidates = [ICECandidateLine(foundation: "1", component: 1, priority: 2130706431, address: "127.0.0.1", port: 45000, type: .host)]
        local.includeCandidates = true
        local.ssrc = 12345
        let result = try aiortcOffer { offer in try makeAnswer(to: offer, local: local).sdp }
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.output.contains("ACCEPTED"))
    }

    /// Negative control: a broken answer must be refused, so the test above can fail.
    @Test func aiortcRejectsABrokenAnswer() throws {
        let result = try aiortcOffer { offer in
            try makeAnswer(to: offer, local: SDPFixtures.local()).sdp.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass")
        }
        #expect(result.status == 1)
        #expect(result.output.contains("REJECTED"))
    }

    @Test func aiortcAnswersOurOfferAndWeApplyIt() throws {
        let offer = makeOffer(SDPFixtures.local(), sessionId: 1234, version: 1)
        let peer = try Peer(mode: "answer-offer")
        try peer.send(offer)
        let result = peer.finish()
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        let negotiated = try applyAnswer(result.output, toOffer: offer)
        // aiortc 1.4 writes no fmtp for Opus in its answer.
        #expect(negotiated.codec == .opus(payloadType: 111, parameters: OpusParameters(parameters: [:])))
        #expect(negotiated.telephoneEventPT == nil)
        #expect(negotiated.dtlsRole == .server)
        #expect(negotiated.remoteCandidates.first?.address == "127.0.0.1")
        #expect(negotiated.mid == "0")
        #expect(negotiated.localDirection == .sendonly)
    }
}
