// Fuzz harness: push payloads (AgentCore/Push `PushPayload`), as `wcs-agent reconnect
// --payload` reads them from a file or standard input and the webhook from a request body.
// Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AgentCore
import WCSSession

/// One input is one payload. Checks: nothing traps; an accepted payload has a usable call id
/// (non-empty, at most 256 characters, no line breaks, no surrounding blanks) and survives the
/// trip through its JSON form (the `push` argument of the `reconnect` request).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPushPayload(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(FuzzInput(data, size).all)
    guard let payload = try? PushPayload(data: bytes) else { return 0 }
    let id = payload.callId
    fuzzCheck(!id.isEmpty && id.count <= 256 && !id.contains(where: \.isNewline), "unusable call id accepted: \(id.debugDescription)")
    fuzzCheck(id.trimmingCharacters(in: .whitespaces) == id, "call id keeps surrounding blanks: \(id.debugDescription)")
    let again = try? PushPayload(json: payload.json)
    fuzzCheck(again?.callId == payload.callId && again?.uuid == payload.uuid && again?.handle == payload.handle,
              "the payload's JSON form reads back differently")
    let wire = try? PushPayload(data: Data(payload.json.serialized().utf8))
    fuzzCheck(wire?.callId == payload.callId, "the payload's serialized JSON reads back differently")
    return 0
}
