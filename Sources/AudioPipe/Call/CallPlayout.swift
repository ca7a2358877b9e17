import AudioCodec
import AudioJitter

/// The receive half of a call's 20 ms tick: takes the jitter buffer's verdict for the slot and
/// makes one frame of samples from it, into one reused buffer (no allocation per frame with Opus).
///
/// - `.frame`: decoded from its own packet.
/// - `.lost` with the next packet in hand and that packet carrying in-band FEC (`OpusPacketFEC`,
///   checked because libopus would silently run PLC instead): rebuilt from the FEC data.
/// - `.lost` otherwise: the codec's concealment (libopus PLC), faded out over a loss burst and
///   faded back in on the next real frame (`ConcealmentFade`).
/// - `.silence`: zeros.
///
/// Runs on the media clock thread only: `CallAudioEngine` owns it with the decoder, so nothing
/// here locks; the counters go to `CallReceiveState`, which other threads read.
package struct CallPlayout {
    /// How a slot was filled.
    package enum Slot: Equatable {
        case decoded
        case recoveredFEC
        case concealed
        case silence
    }

    private let decoder: any AudioDecoder
    private let receive: CallReceiveState
    private let opus: Bool
    private var fade = ConcealmentFade()
    /// Room for the longest packet a decoder may produce: 120 ms at 48 kHz.
    private var buffer = [Int16](repeating: 0, count: 5_760)

    /// Playout of `receive`'s jitter buffer through `codecs`' decoder.
    package init(codecs: CallCodecSet, receive: CallReceiveState) {
        decoder = codecs.decoder
        self.receive = receive
        if case .opus = codecs.codec { opus = true } else { opus = false }
    }

    /// Fills the slot at `now` and hands its samples to `play` (valid only during the call).
    /// Returns what the slot was and, when a packet could not be decoded, why.
    package mutating func next(now: Double, play: (UnsafeBufferPointer<Int16>) -> Void) -> (slot: Slot, failure: String?) {
        var failure: String?
        let slot: Slot
        let count: Int
        switch receive.pop(now: now) {
        case .frame(let payload):
            do {
                count = try payload.withUnsafeBytes { bytes in
                    try buffer.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
                }
                slot = .decoded
            } catch {
                failure = "decoding failed: \(error)"
                count = buffer.withUnsafeMutableBufferPointer { decoder.conceal(into: $0) }
                slot = .concealed
            }
        case .lost(let next):
            if opus, let next, OpusPacketFEC.carriesFEC(next) {
                count = next.withUnsafeBytes { bytes in
                    buffer.withUnsafeMutableBufferPointer { decoder.decodeFEC(from: bytes, into: $0) }
                }
                slot = .recoveredFEC
            } else {
                count = buffer.withUnsafeMutableBufferPointer { decoder.conceal(into: $0) }
                slot = .concealed
            }
        case .silence:
            fade.silence()
            count = AudioFormat.samplesPerFrame
            buffer.withUnsafeMutableBufferPointer { $0[0..<count].update(repeating: 0) }
            slot = .silence
        }
        buffer.withUnsafeMutableBufferPointer { (all: inout UnsafeMutableBufferPointer<Int16>) in
            let samples = UnsafeMutableBufferPointer<Int16>(rebasing: all[0..<count])
            switch slot {
            case .decoded, .recoveredFEC: fade.play(samples)
            case .concealed: fade.conceal(samples)
            case .silence: break
            }
            play(UnsafeBufferPointer(samples))
        }
        switch slot {
        case .decoded: receive.count(.decoded)
        case .recoveredFEC: receive.count(.recoveredFEC)
        case .concealed: receive.count(.concealed)
        case .silence: break
        }
        return (slot, failure)
    }
}
