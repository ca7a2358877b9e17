import FoundationEssentials

/// The token file's JSON: the newest token's fields at the top level (exactly the one-server format,
/// so earlier versions and one-server files read the same), the other servers' tokens under `others`.
struct TokenFile: Codable {
    var server: String
    var token: String
    var sessionId: String?
    var savedAt: Date
    var address: String?
    /// Tokens of other servers, newest first (absent in one-server files).
    var others: [StoredToken]?

    /// A file of `tokens`, newest first (at least one).
    init(_ tokens: [StoredToken]) {
        let newest = tokens[0]
        server = newest.server
        token = newest.token
        sessionId = newest.sessionId
        savedAt = newest.savedAt
        address = newest.address
        let rest = Array(tokens.dropFirst())
        others = rest.isEmpty ? nil : rest
    }

    /// Every record, newest first; a server named twice keeps its first (newest) record.
    var records: [StoredToken] {
        let all = [StoredToken(server: server, token: token, sessionId: sessionId, savedAt: savedAt, address: address)]
            + (others ?? [])
        var seen = Set<String>()
        return all.filter { seen.insert($0.server).inserted }
    }
}
