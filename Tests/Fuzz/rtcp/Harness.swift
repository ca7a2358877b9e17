// Fuzz harness: compound RTCP parsing (AudioRTP), as the receive path meets every decrypted
// RTCP datagram. Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AudioRTP

/// One input is one RTCP compound datagram. Checks: nothing traps; packets that parse
/// serialize to a compound that parses to the same packets.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).all
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return 0 }
    for packet in packets {
        _ = packet.packetType
        if case .sourceDescription(let description) = packet {
            for chunk in description.chunks { _ = description.cname(for: chunk.ssrc) }
        }
    }
    do {
        let written = try RTCPPacket.serializeCompound(packets)
        let reparsed = try RTCPPacket.parseCompound(written)
        fuzzCheck(reparsed == packets, "parse(serialize(packets)) != packets")
    } catch {
        fuzzCheck(false, "parsed packets do not serialize: \(error)")
    }
    return 0
}
