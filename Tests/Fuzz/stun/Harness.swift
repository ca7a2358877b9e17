// Fuzz harness: STUN/TURN answers as `wcs-agent doctor` reads them from the configured STUN and
// TURN servers (AgentCore/Doctor `STUNMessage`). ICE's own STUN is libnice's. Runs on
// libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AgentCore
@testable import AgentTools

/// One input is one datagram (or TCP-framed message) from a server. Checks: nothing traps; a
/// message that decodes re-encodes to bytes that decode to the same method, class, transaction
/// id and attributes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).all
    if bytes.count >= 20 { _ = STUNMessage.totalLength(header: Array(bytes.prefix(20))) }
    guard let message = STUNMessage(decoding: bytes) else { return 0 }
    _ = message.errorCode
    _ = message.address(.xorMappedAddress)
    _ = message.address(.xorRelayedAddress)
    guard message.attributes.allSatisfy({ $0.value.count <= 0xFFFF }),
          message.attributes.reduce(0, { $0 + 4 + ($1.value.count + 3) / 4 * 4 }) <= 0xFFFF else { return 0 }
    let again = STUNMessage(decoding: message.encoded())
    fuzzCheck(again?.method == message.method && again?.messageClass == message.messageClass
              && again?.transactionID == message.transactionID, "header changed in a round trip")
    fuzzCheck(again?.attributes.map(\.type) == message.attributes.map(\.type)
              && again?.attributes.map(\.value) == message.attributes.map(\.value), "attributes changed in a round trip")
    return 0
}
