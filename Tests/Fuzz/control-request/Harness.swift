// Fuzz harness: control requests (AgentCore/Control `ControlWire`, `ControlCoding` and the
// argument types of the verbs), as the daemon reads each line a local client writes to the
// control socket. Runs on libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AgentCore
import WCSSession

/// Decodes `args` as the dispatcher does for a verb taking `Arguments`; a refusal must be
/// describable (it becomes the `bad_request` message).
private func decodeArguments<Arguments: Codable & Equatable>(_ type: Arguments.Type, _ args: JSONValue) {
    do {
        let arguments = try ControlCoding.decode(type, from: args)
        let json = try ControlCoding.json(arguments)
        let again = try ControlCoding.decode(type, from: json)
        fuzzCheck(again == arguments, "\(type) changed in a JSON round trip")
    } catch {
        fuzzCheck(!ControlCoding.describe(error).isEmpty, "an empty bad_request message")
    }
}

/// One input is the bytes a client sends: split into lines as the server does, each line decoded
/// into id, verb and args, and the args into every argument type. Checks: nothing traps; an
/// accepted request has a non-empty verb and an object as args; a refusal's id is a number,
/// string or null; typed arguments survive a JSON round trip; the response line is one line of
/// JSON that carries the id back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).all
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        switch ControlWire.decodeRequest(Data(line)) {
        case .success(let (id, verb, args)):
            fuzzCheck(!verb.isEmpty && args.objectValue != nil, "accepted verb \(verb.debugDescription) with args \(args)")
            decodeArguments(NoArguments.self, args)
            decodeArguments(HelloArguments.self, args)
            decodeArguments(CallArguments.self, args)
            decodeArguments(DialArguments.self, args)
            decodeArguments(DTMFArguments.self, args)
            decodeArguments(TransferArguments.self, args)
            decodeArguments(ReconnectArguments.self, args)
            if let push = args["push"] { _ = try? PushPayload(json: push) }
            let response = ControlWire.encodeResponse(id: id, .failure(code: ControlErrorCode.unknownVerb, message: verb))
            fuzzCheck(response.last == UInt8(ascii: "\n") && response.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil,
                      "the response is not one line")
            let echoed = try? JSONValue.parse(Data(response.dropLast()))
            fuzzCheck(echoed?["id"] == id, "the response does not carry the id \(id) back")
        case .failure(let rejection):
            switch rejection.id {
            case .number, .string, .null: break
            default: fuzzCheck(false, "a rejection carries the id \(rejection.id)")
            }
        }
    }
    return 0
}
