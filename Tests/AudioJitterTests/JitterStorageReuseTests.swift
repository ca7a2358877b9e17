@testable import AudioJitter
import Testing

/// Packets are copied into storage the buffer keeps: after the ring has gone round once, a new
/// packet lands in the bytes its slot held 128 packets earlier (no allocation per packet).
@Suite struct JitterStorageReuseTests {
    static func base(_ payload: [UInt8]) -> UnsafeRawPointer? {
        payload.withUnsafeBytes { $0.baseAddress }
    }

    @Test func aSlotReusesItsStorageOnceThePlayedPayloadIsReleased() {
        var ring = JitterSlotRing()
        let first: [UInt8] = Array(repeating: 1, count: 200)
        first.withUnsafeBytes { ring.store(sequence: 5, timestamp: 0, payload: $0) }
        var played: [UInt8]? = ring.take(5)
        let storage = played.flatMap(Self.base)
        #expect(played == first)
        played = nil  // the decoder is done with it
        let second: [UInt8] = Array(repeating: 2, count: 120)
        second.withUnsafeBytes { ring.store(sequence: 5 + Int64(JitterSlotRing.size), timestamp: 960, payload: $0) }
        let again = ring.take(5 + Int64(JitterSlotRing.size))
        #expect(again == second)
        #expect(Self.base(again) == storage, "the second packet reused the first one's bytes")
    }

    @Test func aPayloadStillInUseIsNotOverwritten() {
        var ring = JitterSlotRing()
        [UInt8](repeating: 7, count: 50).withUnsafeBytes { ring.store(sequence: 1, timestamp: 0, payload: $0) }
        let held = ring.take(1)
        [UInt8](repeating: 9, count: 50).withUnsafeBytes { ring.store(sequence: 1 + Int64(JitterSlotRing.size), timestamp: 0, payload: $0) }
        #expect(held == [UInt8](repeating: 7, count: 50), "copy on write keeps what the decoder holds")
    }

    @Test func theBufferPlaysWhatWasInsertedAsBytes() throws {
        var buffer = try JitterBuffer()
        let payload: [UInt8] = [0xAB, 0xCD, 0xEF]
        payload.withUnsafeBytes { _ = buffer.insert(seq: 10, timestamp: 960, payloadBytes: $0, arrival: 0) }
        var output: JitterOutput = .silence
        for tick in 0..<5 {
            output = buffer.pop(now: 0.001 + Double(tick) * 0.02)
            if case .frame = output { break }
        }
        #expect(output == .frame(payload))
    }
}
