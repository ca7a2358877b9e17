// Fuzz harness: RTP packet and header-extension parsing (AudioRTP), as the receive path meets
// every decrypted datagram. Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AudioRTP

/// One input is one RTP datagram. Checks: nothing traps; a packet that parses serializes to
/// bytes that parse to the same packet; the payload range lies inside the datagram; header
/// extension elements that parse re-encode (in their form) to the same elements.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).all
    guard let (header, range) = try? RTPHeader.parse(bytes) else { return 0 }
    fuzzCheck(range.lowerBound >= RTPHeader.fixedSize && range.upperBound <= bytes.count,
              "payload range \(range) outside a \(bytes.count)-byte datagram")
    fuzzCheck(range.lowerBound == header.serializedSize, "payload starts at \(range.lowerBound), header is \(header.serializedSize) bytes")

    let packet: RTPPacket
    do { packet = try RTPPacket(parsing: bytes) } catch {
        fuzzCheck(false, "RTPHeader.parse accepted what RTPPacket refuses: \(error)")
        return 0
    }
    do {
        let written = try packet.serialized()
        fuzzCheck(written.count == bytes.count, "re-serialized \(written.count) bytes of \(bytes.count)")
        let reparsed = try RTPPacket(parsing: written)
        fuzzCheck(reparsed == packet, "parse(serialize(p)) != p")
    } catch {
        fuzzCheck(false, "a parsed packet does not serialize: \(error)")
    }

    if let headerExtension = header.headerExtension, let form = headerExtension.form,
       let elements = try? headerExtension.elements() {
        for element in elements { fuzzCheck(headerExtension.element(id: element.id) != nil, "element \(element.id) not found") }
        if let rebuilt = try? RTPHeaderExtension(elements: elements, form: form) {
            fuzzCheck((try? rebuilt.elements()) == elements, "header extension elements changed in a round trip")
        }
    }
    return 0
}
