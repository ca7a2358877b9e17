// Fuzz harness: the push webhook's request reader (AgentCore/Push `PushWebhookRequestReader`,
// `PushHTTPRequestHead`), which reads bytes from any client that connects to `[push] listen`.
// Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AgentCore

private let secret = Array("fuzz-secret".utf8)

/// Feeds `request` to a fresh reader in pieces of `piece` bytes; returns the first decision.
private func firstDecision(_ request: [UInt8], piece: Int) -> PushWebhookRequestReader.Progress {
    var reader = PushWebhookRequestReader(secret: secret)
    var start = 0
    repeat {
        let end = min(start + piece, request.count)
        let progress = reader.append(request[start..<end])
        if progress != .needMore { return progress }
        start = end
    } while start < request.count
    return .needMore
}

/// One input is `piece size (1) | request bytes`. Checks: nothing traps; a request read whole and
/// read in pieces gets the same first decision (within the head limit, where a reader may
/// refuse early); a complete request was authenticated and its body has the declared length.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPushWebhook(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let piece = Int(input.byte() % 64) + 1
    let request = input.rest()
    let whole = firstDecision(request, piece: max(request.count, 1))
    let pieces = firstDecision(request, piece: piece)
    if request.count <= PushHTTPRequestHead.maximumSize {
        fuzzCheck(whole == pieces, "whole: \(whole), in \(piece)-byte pieces: \(pieces)")
    }
    if case .complete(let body) = whole {
        fuzzCheck(body.count <= PushPayload.maximumSize, "a \(body.count)-byte body was accepted")
        _ = try? PushPayload(data: Data(body))
    }
    _ = PushHTTPRequestHead.endOfHead(in: request)
    _ = PushHTTPRequestHead(request)
    return 0
}
