@testable import AgentControl
import Testing

/// Relative paths in a config file resolve against its directory, as NSString's path functions did.
@Suite struct ConfigPathTests {
    @Test func theDirectoryOfAPath() {
        #expect(ConfigFile.directory(of: "/etc/wcs-agent/a.conf") == "/etc/wcs-agent")
        #expect(ConfigFile.directory(of: "a.conf") == "")
        #expect(ConfigFile.directory(of: "/a.conf") == "/")
        #expect(ConfigFile.directory(of: "conf/a.conf") == "conf")
        #expect(ConfigFile.directory(of: "conf/sub/") == "conf")
    }

    @Test func relativeSocketPathsResolveAgainstTheFile() throws {
        let text = "[agent]\nsocket = run/control.sock\n"
        #expect(try ConfigFile.parse(text, path: "/etc/x/a.conf").section("agent").path("socket") == "/etc/x/run/control.sock")
        #expect(try ConfigFile.parse(text, path: "a.conf").section("agent").path("socket") == "run/control.sock")
        #expect(try ConfigFile.parse(text, path: "/a.conf").section("agent").path("socket") == "/run/control.sock")
        #expect(try ConfigFile.parse("[agent]\nsocket = /s\n", path: "/etc/x/a.conf").section("agent").path("socket") == "/s")
    }

    @Test func sectionsAndKeysStayASCII() {
        #expect(throws: ConfigError.self) { try ConfigFile.parse("[agént]\n", path: "a.conf") }
        #expect(throws: ConfigError.self) { try ConfigFile.parse("[agent]\nkéy = 1\n", path: "a.conf") }
        #expect((try? ConfigFile.parse("[a-b.c_d]\nkey_1 = x # note\n", path: "a.conf").section("a-b.c_d").string("key_1")) == "x")
    }
}
