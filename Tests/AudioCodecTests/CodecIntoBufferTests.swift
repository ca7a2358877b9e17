import TestSupport
@testable import AudioCodec
import Testing

/// The allocation-free `into:` variants (what the send and playout paths use) produce exactly what
/// the array methods produce, for Opus (its own implementation) and G.711 (the copying default).
@Suite struct CodecIntoBufferTests {
    @Test func opusEncodeAndDecodeIntoBuffersMatchTheArrayMethods() throws {
        let frames = TestSignal.frames(TestSignal.speechLike(count: 48_000))
        let arrays = try OpusEncoder(), buffers = try OpusEncoder()
        let arrayDecoder = try OpusDecoder(), bufferDecoder = try OpusDecoder()
        var payload = [UInt8](repeating: 0, count: 1_500)
        var pcm = [Int16](repeating: 0, count: 5_760)
        for (index, frame) in frames.enumerated() {
            let expected = try arrays.encode(frame)
            let length = try frame.withUnsafeBufferPointer { samples in
                try payload.withUnsafeMutableBytes { try buffers.encode(samples, into: $0) }
            }
            #expect(Array(payload[0..<length]) == expected)
            let decoded: [Int16]
            let count: Int
            if index % 10 == 5 {  // a loss: concealment, then FEC from the next packet, both ways
                decoded = arrayDecoder.conceal()
                count = pcm.withUnsafeMutableBufferPointer { bufferDecoder.conceal(into: $0) }
            } else if index % 10 == 7, index + 1 < frames.count {
                let next = try OpusEncoder().encode(frames[index])  // any packet: FEC or PLC inside
                decoded = arrayDecoder.decodeFEC(from: next)
                count = next.withUnsafeBytes { bytes in pcm.withUnsafeMutableBufferPointer { bufferDecoder.decodeFEC(from: bytes, into: $0) } }
            } else {
                decoded = try arrayDecoder.decode(expected)
                count = try expected.withUnsafeBytes { bytes in
                    try pcm.withUnsafeMutableBufferPointer { try bufferDecoder.decode(bytes, into: $0) }
                }
            }
            #expect(count == 960 && Array(pcm[0..<count]) == decoded, "frame \(index)")
        }
        #expect(throws: CodecError.self) {
            try [UInt8]().withUnsafeBytes { bytes in try pcm.withUnsafeMutableBufferPointer { try bufferDecoder.decode(bytes, into: $0) } }
        }
    }

    @Test func g711IntoBuffersCopyTheArrayMethods() throws {
        let frame = TestSignal.sine(frequency: 440, count: 960)
        let encoder = try PCMUEncoder(), reference = try PCMUEncoder()
        var payload = [UInt8](repeating: 0, count: 1_500)
        let length = try frame.withUnsafeBufferPointer { samples in
            try payload.withUnsafeMutableBytes { try encoder.encode(samples, into: $0) }
        }
        #expect(Array(payload[0..<length]) == (try reference.encode(frame)))
        let decoder = try PCMUDecoder(), referenceDecoder = try PCMUDecoder()
        var pcm = [Int16](repeating: 0, count: 5_760)
        let count = try payload[0..<length].withUnsafeBytes { bytes in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
        }
        #expect(Array(pcm[0..<count]) == (try referenceDecoder.decode(Array(payload[0..<length]))))
        // A buffer too small for the payload is an error, not an overrun.
        var tiny = [UInt8](repeating: 0, count: 10)
        #expect(throws: CodecError.self) {
            try frame.withUnsafeBufferPointer { samples in try tiny.withUnsafeMutableBytes { try encoder.encode(samples, into: $0) } }
        }
    }
}
