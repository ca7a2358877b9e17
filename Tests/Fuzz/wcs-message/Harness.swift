// Fuzz harness: the WCS server-message decoder (WCSSession/Protocol), as the session feeds it
// every text frame from the WebSocket. Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import WCSSession

/// One input is one text frame, in the fragments the transport may receive it in: the first
/// byte picks a split point, the frame is reassembled by `IncomingMessage` and then decoded.
/// Checks: decoding never traps; a frame that decodes also decodes the same after a JSON
/// round trip through `JSONValue.serialized()` (the form the agent logs and re-sends).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWCSMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let split = Int(input.byte())
    let frame = input.rest()
    var message = IncomingMessage()
    let cut = min(split, frame.count)
    let fitted = frame.withUnsafeBytes { bytes in
        message.append(UnsafeRawBufferPointer(rebasing: bytes[..<cut]), limit: 1 << 20)
            && message.append(UnsafeRawBufferPointer(rebasing: bytes[cut...]), limit: 1 << 20)
    }
    fuzzCheck(fitted, "a \(frame.count)-byte frame was refused under a 1 MiB limit")
    guard case .text(let text) = message.take() else {
        fuzzCheck(false, "a text frame came back as binary")
        return 0
    }
    fuzzCheck(text == String(decoding: frame, as: UTF8.self), "reassembly changed the frame")

    guard let decoded = try? ServerMessageDecoder.decode(text) else { return 0 }
    _ = String(describing: decoded)
    if let json = try? JSONValue.parse(text) {
        let again = try? JSONValue.parse(json.serialized())
        fuzzCheck(again == json, "JSON round trip changed \(json.serialized())")
        let redecoded = try? ServerMessageDecoder.decode(json.serialized())
        fuzzCheck(redecoded == decoded, "the re-serialized frame decodes differently")
    }
    return 0
}
