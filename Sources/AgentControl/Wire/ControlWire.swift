import FoundationEssentials
import WCSJSON

/// The JSON Lines encoding of the control protocol, shared by server and client.
public enum ControlWire {
    /// The verb the server handles itself: after its response the connection receives events.
    public static let subscribeVerb = "subscribe"
    /// The handshake verb (`ControlVerbs.hello`); a daemon answers it before reading on (see docs/control-protocol.md).
    public static let helloVerb = "hello"

    /// A request line that could not be accepted, with the id to answer with (`null` if unknown).
    public struct Rejection: Error, Equatable {
        /// The id to answer with.
        public let id: JSONValue
        /// Why the line was refused.
        public let message: String
    }

    /// Decodes one request line (without the newline) into id, verb and args.
    public static func decodeRequest(_ line: Data) -> Result<(id: JSONValue, verb: String, args: JSONValue), Rejection> {
        guard let value = try? JSONValue.parse(line), case .object(let members) = value else {
            return .failure(Rejection(id: .null, message: "malformed request: expected one JSON object per line"))
        }
        let id = members["id"] ?? .null
        switch id {
        case .number, .string, .null: break
        default: return .failure(Rejection(id: .null, message: "invalid request id: use a number or a string"))
        }
        guard case .string(let verb)? = members["verb"], !verb.isEmpty else {
            return .failure(Rejection(id: id, message: "missing verb: expected {\"id\": 1, \"verb\": \"status\"}"))
        }
        let args = members["args"] ?? [:]
        switch args {
        case .object: return .success((id, verb, args))
        case .null: return .success((id, verb, [:]))
        default: return .failure(Rejection(id: id, message: "args must be a JSON object"))
        }
    }

    /// A response line, newline included.
    public static func encodeResponse(id: JSONValue, _ response: ControlResponse) -> Data {
        let object: JSONValue
        switch response {
        case .ok(let result): object = ["id": id, "ok": true, "result": result]
        case .failure(let code, let message): object = ["id": id, "ok": false, "error": .string(message), "code": .string(code)]
        }
        return line(object)
    }

    /// An event line, newline included.
    public static func encodeEvent(_ event: JSONValue) -> Data {
        line(["event": event])
    }

    /// A request line, newline included.
    public static func encodeRequest(id: JSONValue, verb: String, args: JSONValue) -> Data {
        line(["id": id, "verb": .string(verb), "args": args])
    }

    private static func line(_ value: JSONValue) -> Data {
        Data((value.serialized() + "\n").utf8)
    }
}
