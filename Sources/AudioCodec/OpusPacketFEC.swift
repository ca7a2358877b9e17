import COpus

/// Whether an Opus packet carries in-band FEC (SILK "LBRR" data: a low-bitrate copy of the frame
/// before it), read from the packet without decoding it.
///
/// Runs on any thread (a pure function of the bytes). It exists so the playout path knows whether
/// `decodeFEC(from:)` really rebuilds the lost frame or only falls back to concealment, and counts
/// it: libopus 1.3 (Debian 12) answers `opus_decode(..., decode_fec: 1)` on a packet without
/// LBRR with plain PLC and says nothing. The LBRR flags are the range coder's first symbols of
/// the SILK layer, right after one voice-activity flag per 20 ms SILK frame, each coded with
/// probability 1/2, so they are the leading bits of the first frame's first byte.
public enum OpusPacketFEC {
    /// True when `payload` holds FEC data for the frame before it. False for CELT-only packets
    /// (they never carry FEC), for malformed packets and for empty ones.
    public static func carriesFEC(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let base = payload.baseAddress?.assumingMemoryBound(to: UInt8.self), !payload.isEmpty else { return false }
        let toc = base[0]
        let configuration = Int(toc >> 3)
        guard configuration < 16 else { return false }  // 16...31: CELT only
        // SILK (0...11): 10, 20, 40 or 60 ms per Opus frame; hybrid (12...15): 10 or 20 ms.
        let milliseconds = configuration < 12 ? [10, 20, 40, 60][configuration & 3] : [10, 20][configuration & 1]
        let silkFrames = max(1, milliseconds / 20)
        let stereo = toc & 0x04 != 0
        var firstFrame: UnsafePointer<UInt8>?
        var firstSize: Int16 = 0
        let parsed = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 48) { frames in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
                let count = opus_packet_parse(base, Int32(payload.count), nil, frames.baseAddress!, sizes.baseAddress!, nil)
                if count > 0 {
                    firstFrame = frames[0]
                    firstSize = sizes[0]
                }
                return count
            }
        }
        guard parsed > 0, firstSize > 0, let head = firstFrame?.pointee else { return false }
        // Mid channel: VAD flags (silkFrames bits), then its LBRR flag.
        if (head >> (7 - silkFrames)) & 1 == 1 { return true }
        // Side channel (stereo): its VAD flags and LBRR flag follow.
        return stereo && (head >> (6 - 2 * silkFrames)) & 1 == 1
    }

    /// `carriesFEC` for a payload held in an array.
    public static func carriesFEC(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { carriesFEC($0) }
    }
}
