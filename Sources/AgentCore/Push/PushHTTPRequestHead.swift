import FoundationEssentials

/// The request line and headers of an HTTP/1.1 request, as the push webhook reads them.
struct PushHTTPRequestHead: Sendable, Equatable {
    /// The most bytes of request line plus headers accepted.
    static let maximumSize = 8 * 1024

    let method: String
    /// The path without the query string.
    let path: String
    /// Header names in lower case; a repeated header keeps its last value.
    let headers: [String: String]

    /// Parses the bytes before the blank line (without the final CRLF CRLF). Nil when malformed.
    init?(_ bytes: some Collection<UInt8>) {
        guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), !requestLine[0].isEmpty,
              requestLine[1].hasPrefix("/") else { return nil }
        method = String(requestLine[0])
        path = String(requestLine[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingSpaces().lowercased()
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            headers[name] = line[line.index(after: colon)...].trimmingSpaces()
        }
        self.headers = headers
    }

    /// The index just past the CRLF CRLF ending the head in `buffer`, if it is there.
    static func endOfHead(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}
