/// Turns SDP text into a `SessionDescription`, checking the structure RFC 8866 requires.
enum SDPParser {
    /// The valid line types; RFC 8866 types and unknown ones alike are kept.
    private static let letters = Set("abcdefghijklmnopqrstuvwxyz")

    static func parse(_ text: String) throws(SDPError) -> SessionDescription {
        let lines = try splitLines(text)
        guard let first = lines.first else {
            throw SDPError(line: 1, text: "", reason: "empty session description")
        }
        guard first.type == "v" else { throw first.error("the first line must be v=") }
        guard first.value == "0" else { throw first.error("unsupported SDP version") }
        guard lines.count >= 2, lines[1].type == "o" else {
            throw lines.count >= 2 ? lines[1].error("the second line must be o=")
                : SDPError(line: 2, text: "", reason: "missing o= line")
        }
        let origin = try SDPOrigin(line: lines[1])
        guard lines.count >= 3, lines[2].type == "s" else {
            throw lines.count >= 3 ? lines[2].error("the third line must be s=")
                : SDPError(line: 3, text: "", reason: "missing s= line")
        }
        var session = SessionDescription(origin: origin, sessionName: lines[2].value)
        for line in lines.dropFirst(3) {
            try validate(line)
            if line.type == "m" {
                session.media.append(try mediaSection(from: line))
            } else if session.media.isEmpty {
                session.lines.append(line)
            } else {
                session.media[session.media.count - 1].lines.append(line)
            }
        }
        return session
    }

    /// Splits on `\n` (bytes, since `\r\n` is one Character), drops a trailing `\r`, skips
    /// blank lines, and checks `<letter>=`.
    private static func splitLines(_ text: String) throws(SDPError) -> [SDPLine] {
        var result: [SDPLine] = []
        for (index, raw) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let bytes = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            let line = String(decoding: bytes, as: UTF8.self)
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let number = index + 1
            guard line.utf8.count >= 2, let type = line.first, letters.contains(type),
                  line.utf8.dropFirst().first == UInt8(ascii: "=") else {
                throw SDPError(line: number, text: line, reason: "not a <letter>=<value> line")
            }
            result.append(SDPLine(type: type, value: String(line.dropFirst(2)), lineNumber: number))
        }
        return result
    }

    /// Checks the lines whose syntax this parser relies on.
    private static func validate(_ line: SDPLine) throws(SDPError) {
        switch line.type {
        case "v", "o", "s":
            throw line.error("duplicate \(line.type)= line")
        case "c":
            _ = try SDPConnection(line: line)
        case "t":
            let fields = line.value.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, fields.allSatisfy({ UInt64($0) != nil }) else {
                throw line.error("t= needs two numbers")
            }
        case "a":
            guard let name = line.attribute?.name, !name.isEmpty else {
                throw line.error("a= line without an attribute name")
            }
        default:
            break
        }
    }

    private static func mediaSection(from line: SDPLine) throws(SDPError) -> MediaDescription {
        let fields = line.value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 4 else { throw line.error("m= needs media, port, protocol and formats") }
        let portParts = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard let port = Int(portParts[0]), (0...65535).contains(port) else {
            throw line.error("m= port is not a number in 0-65535")
        }
        var portCount: Int?
        if portParts.count == 2 {
            guard let count = Int(portParts[1]), count > 0 else { throw line.error("m= port count is not a number") }
            portCount = count
        } else if portParts.count > 2 {
            throw line.error("m= port has more than one /")
        }
        let section = MediaDescription(mediaType: fields[0], port: port, portCount: portCount,
                                       transportProtocol: fields[2], formats: Array(fields[3...]))
        if section.isRTP {
            for format in section.formats {
                guard let pt = Int(format), (0...127).contains(pt) else {
                    throw line.error("RTP format \(format) is not a payload type 0-127")
                }
            }
        }
        return section
    }
}
