@testable import MediaBenchmarks
@testable import AudioPipe
import AudioCodec
import Foundation
import Testing

/// The cheap far end of the scaling bench (`CallMediaBenchmark.CheapCodecs`): replayed Opus is real
/// Opus that a full call hears as its tone, and the sampled decoder really decodes what it says.
@Suite struct CallMediaBenchmarkCheapCodecsTests {
    private static let frames = try! CallMediaBenchmark.PreEncodedOpus(configuration: CallMediaConfiguration(), seconds: 1)

    @Test("Pre-encoded frames are 20 ms Opus frames of the 440 Hz tone")
    func preEncodedFramesDecodeToTheTone() throws {
        #expect(Self.frames.frames.count == 50)
        let decoder = try OpusDecoder()
        var pcm: [Int16] = []
        for frame in Self.frames.frames {
            let samples = try frame.withUnsafeBytes { try decoder.decode($0) }
            #expect(samples.count == 960)
            pcm += samples
        }
        let heard = ToneReport(pcm, expected: 440, seconds: 0.5)
        #expect(heard.hasFrequency(440), "\(heard)")
        #expect(heard.rmsDBFS > -12, "\(heard)")
    }

    @Test("The replay encoder hands out the frames in order, loops, and refuses a wrong frame size")
    func replayEncoderLoops() throws {
        let encoder = ReplayEncoder(frames: Self.frames.frames)
        let pcm = [Int16](repeating: 0, count: 960)
        var out = [UInt8](repeating: 0, count: 1_500)
        for index in 0..<(Self.frames.frames.count + 3) {
            let expected = Self.frames.frames[index % Self.frames.frames.count]
            if index.isMultiple(of: 2) {
                #expect(try encoder.encode(pcm) == expected)
            } else {
                let count = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
                #expect(Array(out[0..<count]) == expected)
            }
        }
        #expect(throws: CodecError.wrongFrameSize(expected: 960, got: 480)) {
            try encoder.encode([Int16](repeating: 0, count: 480))
        }
        #expect(!encoder.lastFrameWasDTX && encoder.clockRate == 48_000)
    }

    /// The decoder the cheap codecs' factory makes for an Opus call.
    static func opusDecoder(of codecs: CallMediaBenchmark.CheapCodecs) throws -> any AudioDecoder {
        let opus = AudioCodec.opus(payloadType: 111, parameters: OpusParameters(parameters: [:]))
        return try codecs.factory.makeCodecs(for: opus, configuration: CallMediaConfiguration()).decoder
    }

    @Test("The sampled decoder decodes the first and every Nth packet, checks the rest, plays silence for them")
    func sampledDecoderDecodesOneInN() throws {
        let codecs = CallMediaBenchmark.CheapCodecs(frames: Self.frames, verifyEvery: 5)
        let decoder = try Self.opusDecoder(of: codecs)
        var out = [Int16](repeating: 1, count: 5_760)
        var audible = 0
        for index in 0..<12 {
            let count = try Self.frames.frames[index].withUnsafeBytes { p in
                try out.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) }
            }
            #expect(count == 960)
            let silent = out[0..<count].allSatisfy { $0 == 0 }
            #expect(silent == !index.isMultiple(of: 5), "packet \(index)")
            if !silent { audible += 1 }
        }
        let found = codecs.verification
        #expect(audible == 3)
        #expect(found.decoded == 3 && found.checked == 9 && found.failed == 0, "\(found)")
        #expect((found.quietestDB ?? -120) > -40 && (found.loudestDB ?? 0) < -3, "\(found)")
        #expect(decoder.conceal(into: out.withUnsafeMutableBufferPointer { $0 }) == 960)
    }

    @Test("A packet that is not Opus fails, decoded or only checked, and is counted")
    func sampledDecoderRefusesGarbage() throws {
        let codecs = CallMediaBenchmark.CheapCodecs(frames: Self.frames, verifyEvery: 2)
        let decoder = try Self.opusDecoder(of: codecs)
        let garbage: [UInt8] = [0x03]  // code 3 without its frame-count byte: not a valid Opus packet
        var out = [Int16](repeating: 0, count: 5_760)
        for _ in 0..<2 {  // packet 0 goes to libopus, packet 1 to the TOC check
            #expect(throws: (any Error).self) {
                try garbage.withUnsafeBytes { p in try out.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            }
        }
        #expect(codecs.verification.failed == 2 && codecs.verification.decoded == 0)
    }
}

extension CallMediaTests {
    /// A cheap far end in a real call (ICE, DTLS-SRTP on 127.0.0.1) against a full one.
    @Suite struct CheapFarEnd {
        @Test("A full call hears the cheap end's replayed tone; the cheap end decodes a sample of the full end's tone")
        func cheapEndAgainstFullEnd() async throws {
            var cheap = CallMediaTestSupport.configuration(codecs: [.opus])
            let codecs = CallMediaBenchmark.CheapCodecs(frames: try CallMediaBenchmark.PreEncodedOpus(configuration: cheap),
                                                        verifyEvery: 10)
            cheap.codecFactory = codecs.factory
            let pair = try await CallPair.connect(offerer: cheap, answerer: CallMediaTestSupport.configuration(codecs: [.opus]))
            defer { pair.close() }
            #expect(await pair.waitForAudio())
            try await Task.sleep(nanoseconds: 2_000_000_000)
            let cheapStats = pair.offerer.statistics()
            let fullStats = pair.answerer.statistics()
            pair.close()

            let heard = ToneReport(pair.answererSink.samples, expected: 440)
            #expect(heard.hasFrequency(440), "full end heard \(heard)")
            #expect(heard.cleanSNRDB > 20, "full end heard \(heard)")
            #expect(fullStats.framesDecoded >= 90, "\(fullStats)")
            #expect(cheapStats.packetsSent >= 100 && cheapStats.packetsReceived >= 100, "\(cheapStats)")
            #expect(cheapStats.packetsLost <= 2, "\(cheapStats)")
            let found = codecs.verification
            #expect(found.decoded >= 9 && found.failed == 0, "\(found)")
            #expect(found.checked >= 8 * found.decoded, "\(found)")
            #expect((found.loudestDB ?? -120) > -15, "the full end's 880 Hz tone, decoded: \(found)")
        }
    }
}
