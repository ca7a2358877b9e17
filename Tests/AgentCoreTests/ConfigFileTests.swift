import TestSupport
@testable import AgentCore
import Testing

@Suite struct ConfigFileTests {
    @Test func parsesSectionsKeysQuotesAndComments() throws {
        let text = """
            # leading comment
            ; also a comment

            [server]
            url = ws://127.0.0.1:8080   # trailing comment
            app_key = "quoted # not a comment"
            [sip]
            login='literal \\n'
            domain = a#b
            empty =
            escaped = "say \\"hi\\" \\\\ bye"
            """
        let file = try ConfigFile.parse(text, path: "t.conf")
        #expect(file.sections == ["server", "sip"])
        #expect(file.section("server").string("url") == "ws://127.0.0.1:8080")
        #expect(file.section("server").string("app_key") == "quoted # not a comment")
        #expect(file.section("sip").string("login") == "literal \\n")
        #expect(file.section("sip").string("domain") == "a#b")
        #expect(file.section("sip").string("empty") == "")
        #expect(file.section("sip").string("escaped") == "say \"hi\" \\ bye")
        #expect(file.section("sip").entry("domain")?.line == 9)
        #expect(file.section("sip").string("missing") == nil)
    }

    @Test(arguments: [
        ("[server]\nurl", "t.conf:2: expected \"key = value\" or \"[section]\""),
        ("url = x", "t.conf:1: key \"url\" appears before any [section]"),
        ("[server\nurl = x", "t.conf:1: malformed section header [server (expected [name])"),
        ("[]", "t.conf:1: malformed section header [] (expected [name])"),
        ("[a]\nbad key = 1", "t.conf:2: invalid key \"bad key\" (use letters, digits and _)"),
        ("[a]\nk = \"open", "t.conf:2: unterminated quoted value for \"k\""),
        ("[a]\nk = \"x\" y", "t.conf:2: unexpected text after the quoted value of \"k\""),
        ("[a]\nk = \"\\t\"", "t.conf:2: invalid escape in quoted value of \"k\" (only \\\" and \\\\ are allowed)"),
        ("[a]\nk = 1\n\n[a]\nk = 2", "t.conf:5: duplicate key \"k\" in [a] (first set on line 2)"),
    ])
    func syntaxErrorsNameFileAndLine(text: String, message: String) {
        #expect(throws: ConfigError(message)) { try ConfigFile.parse(text, path: "t.conf") }
    }

    @Test func validateRejectsUnknownSectionsAndKeys() throws {
        let schema: [String: Set<String>] = ["sip": ["login"], "agent": []]
        let unknownKey = try ConfigFile.parse("[sip]\nlogin = a\n\nx = 1", path: "config.conf")
        #expect(throws: ConfigError("config.conf:4: unknown key \"x\" in [sip]")) { try unknownKey.validate(schema: schema) }
        let unknownSection = try ConfigFile.parse("[sip]\n[audio]\nx = 1", path: "config.conf")
        #expect(throws: ConfigError("config.conf:2: unknown section [audio] (known: [agent], [sip])")) {
            try unknownSection.validate(schema: schema)
        }
    }

    @Test func typedAccessorsReportBadValuesWithTheirLine() throws {
        let file = try ConfigFile.parse("[s]\nb = maybe\ni = 12x\nd = -1\np = 70000\nok = Yes", path: "c.conf")
        let s = file.section("s")
        #expect(throws: ConfigError("c.conf:2: invalid boolean \"maybe\" for b in [s] (use true/false, yes/no, on/off, 1/0)")) { try s.bool("b") }
        #expect(throws: ConfigError("c.conf:3: invalid integer \"12x\" for i in [s] (expected 0...10)")) { try s.int("i", in: 0...10) }
        #expect(throws: ConfigError("c.conf:4: invalid duration \"-1\" for d in [s] (seconds, 0.1...60)")) { try s.seconds("d", in: 0.1...60) }
        #expect(throws: ConfigError("c.conf:5: invalid integer \"70000\" for p in [s] (expected 1...65535)")) { try s.int("p", in: 1...65535) }
        #expect(try s.bool("ok") == true)
        #expect(try s.bool("absent") == nil)
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        let file = try ConfigFile.parse("[sip]\r\nlogin = 1001\r\n\r\nport = 5060\r\n", path: "t.conf")
        #expect(file.section("sip").string("login") == "1001")
        #expect(file.section("sip").entry("port")?.line == 4)
    }

    @Test func relativePathsResolveAgainstTheFileDirectory() throws {
        let file = try ConfigFile.parse("[s]\nrel = secrets/pw\nabs = /etc/pw", path: "/etc/wcs-agent/agent.conf")
        #expect(try file.section("s").path("rel") == "/etc/wcs-agent/secrets/pw")
        #expect(try file.section("s").path("abs") == "/etc/pw")
    }

    @Test func missingFileIsAClearError() {
        #expect(throws: ConfigError("/nonexistent/x.conf: cannot read config file: No such file or directory")) {
            try ConfigFile.load(path: "/nonexistent/x.conf")
        }
    }
}
