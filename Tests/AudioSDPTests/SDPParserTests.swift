@testable import AudioSDP
import Testing

@Suite struct SDPParserTests {
    @Test(arguments: SDPFixtures.allSDPFiles)
    func roundTripIsEqual(file: String) throws {
        let parsed = try SDPFixtures.session(file)
        let again = try SessionDescription(parsing: parsed.serialized())
        #expect(again == parsed)
        #expect(again.serialized() == parsed.serialized())
    }

    @Test(arguments: SDPFixtures.allSDPFiles)
    func crlfFixturesSerializeByteExact(file: String) throws {
        let text = try SDPFixtures.text(file)
        let expected = text.contains("\r\n") ? text : text.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try SessionDescription(parsing: text).serialized() == expected)
    }

    @Test func lfAndCrlfParseTheSame() throws {
        let crlf = try SDPFixtures.text("chrome-audio-video-offer.sdp")
        let lf = crlf.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(try SessionDescription(parsing: lf) == SessionDescription(parsing: crlf))
    }

    @Test func structureOfChromeOffer() throws {
        let sdp = try SDPFixtures.session("chrome-audio-video-offer.sdp")
        #expect(sdp.origin.sessionId == "4611731400430051336")
        #expect(sdp.origin.sessionVersion == "2")
        #expect(sdp.sessionName == "-")
        #expect(sdp.bundleGroups == [["0", "1"]])
        #expect(sdp.media.map(\.mediaType) == ["audio", "video"])
        #expect(sdp.media[0].formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(sdp.media[1].mid == "1")
        #expect(sdp.media[0].connection == SDPConnection(addressType: "IP4", address: "0.0.0.0"))
        // Attributes stay in document order, including ones this library does not interpret.
        let names = sdp.media[0].attributes.map(\.name)
        #expect(Array(names.prefix(8)) == ["rtcp", "ice-ufrag", "ice-pwd", "ice-options", "fingerprint", "setup", "mid", "extmap"])
        #expect(sdp.media[0].attributeValues(named: "extmap").count == 4)
        #expect(sdp.attributeValue(named: "msid-semantic") == " WMS 5f1d7c2a-stream")
        #expect(sdp.hasAttribute(named: "extmap-allow-mixed"))
    }

    @Test func unknownLinesAndTypesArePreserved() throws {
        let text = "v=0\no=- 1 1 IN IP4 127.0.0.1\ns=x\ni=info text\nb=AS:64\nt=0 0\ny=unknown-type\n"
            + "a=x-custom:1 2 3\nm=audio 5000 RTP/AVP 0\nb=TIAS:64000\nk=prompt\na=flag\n"
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.lines.map(\.type) == ["i", "b", "t", "y", "a"])
        #expect(sdp.media[0].lines.map(\.description) == ["b=TIAS:64000", "k=prompt", "a=flag"])
        #expect(sdp.serialized() == text.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    @Test func builtDescriptionSerializes() {
        let media = MediaDescription(mediaType: "audio", port: 9, portCount: 2, transportProtocol: "RTP/AVP", formats: ["0"],
                                     lines: [.attribute("rtcp-mux"), .attribute("mid", "a")])
        let sdp = SessionDescription(origin: SDPOrigin(sessionId: "7", sessionVersion: "8"),
                                     lines: [SDPLine(type: "t", value: "0 0")], media: [media])
        #expect(sdp.serialized() == "v=0\r\no=- 7 8 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9/2 RTP/AVP 0\r\na=rtcp-mux\r\na=mid:a\r\n")
        #expect(media.mid == "a")
    }

    @Test func blankLinesAreSkippedAndLineNumbersKept() throws {
        let sdp = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 ::1\r\ns=-\r\n\r\nt=0 0\r\na=tool\r\n\r\n")
        #expect(sdp.lines.map(\.lineNumber) == [5, 6])
        #expect(sdp.lines.count == 2)
    }

    static let garbage: [(String, Int, String)] = [
        ("", 1, "empty"),
        ("hello world", 1, "not a <letter>=<value> line"),
        ("v=1\no=- 1 1 IN IP4 x\ns=-", 1, "unsupported SDP version"),
        ("o=- 1 1 IN IP4 x\nv=0\ns=-", 1, "the first line must be v="),
        ("v=0\ns=-\no=- 1 1 IN IP4 x", 2, "the second line must be o="),
        ("v=0\no=- 1 1 IN IP4\ns=-", 2, "o= needs 6 fields"),
        ("v=0\no=- 1 1 IN IP4 x", 3, "missing s= line"),
        ("v=0\no=- 1 1 IN IP4 x\nt=0 0", 3, "the third line must be s="),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nt=now", 4, "t= needs two numbers"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nc=IN IP4", 4, "c= needs 3 fields"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nm=audio x RTP/AVP 0", 4, "m= port is not a number in 0-65535"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nm=audio 70000 RTP/AVP 0", 4, "m= port is not a number in 0-65535"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nm=audio 9 RTP/AVP", 4, "m= needs media, port, protocol and formats"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nm=audio 9 RTP/AVP opus", 4, "RTP format opus is not a payload type 0-127"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nm=audio 9 RTP/AVP 0\nv=0", 5, "duplicate v= line"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\na=", 4, "a= line without an attribute name"),
        ("v=0\no=- 1 1 IN IP4 x\ns=-\nA=b", 4, "not a <letter>=<value> line"),
        ("v=0\r\no=- 1 1 IN IP4 x\r\ns=-\r\n<html>", 4, "not a <letter>=<value> line"),
    ]

    @Test(arguments: garbage)
    func garbageIsRejectedWithLineAndReason(text: String, line: Int, reason: String) {
        let error = #expect(throws: SDPError.self) { try SessionDescription(parsing: text) }
        #expect(error?.line == line)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("SDP line \(line): ") == true)
    }

    @Test func longOffendingLinesAreShortenedInErrors() {
        let text = "v=0\no=- 1 1 IN IP4 x\ns=-\n" + String(repeating: "?", count: 500)
        let error = #expect(throws: SDPError.self) { try SessionDescription(parsing: text) }
        #expect((error?.text.count ?? 0) <= 120)
    }
}
