import Foundation
import WCSSession

/// The stored session: `{"server": ..., "token": ..., "session_id": ...}` in a 0600 file.
/// The token resumes the server session; treat the file like a password.
struct TokenFile {
    let path: String

    /// The stored token, when the file exists and belongs to `server`.
    func load(server: String) -> (token: Secret, sessionId: String?)? {
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONValue.parse(data),
              json["server"]?.stringValue == server,
              let token = json["token"]?.stringValue, !token.isEmpty
        else { return nil }
        return (Secret(token), json["session_id"]?.stringValue)
    }

    /// Writes the session atomically (temporary file, then rename) with mode 0600.
    func save(server: String, session: SessionInfo) throws(ExampleError) {
        let json: JSONValue = .object([
            "server": .string(server), "token": .string(session.token.value),
            "session_id": session.sessionId.map(JSONValue.string) ?? .null,
        ])
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(json.serialized().utf8),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0
        else { throw ExampleError("cannot write the token file \(path)") }
    }

    /// Forgets the session (the server refused the token).
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
