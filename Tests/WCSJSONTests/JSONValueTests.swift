import WCSJSON
import Testing

@Suite struct JSONValueTests {
    @Test func roundTripsObjects() throws {
        let v = try JSONValue.parse(#"{"message":"ping","data":[null],"n":5060,"s":"5060","f":1.5}"#)
        #expect(v["message"]?.stringValue == "ping")
        #expect(v["data"]?[0]?.isNull == true)
        #expect(v["n"]?.intValue == 5060)
        #expect(v["s"]?.intValue == 5060)
        #expect(try JSONValue.parse(v.serialized()) == v)
    }

    @Test func rejectsMalformedText() {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse("{\"message\":") }
    }
}
