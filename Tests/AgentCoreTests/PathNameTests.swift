import TestSupport
import Foundation
import Testing
@testable import AgentCore

/// `PathName` gives what `NSString`'s path methods gave for the same text (the daemon's state
/// files, sockets and credentials are named with it). Paths with doubled slashes are left out of
/// the comparison: corelibs Foundation answers `//` oddly (an empty last component) and traps on
/// some of them; `PathName` tidies them (see `doubledSlashes`).
@Suite struct PathNameTests {
    static let paths = ["", "/", "a", "a/", "/a", "/a/", "/a/b", "/a/b/", "a/b", "/run/user/0",
                        "./x", "../x/", "/a b/c.d", "é/ü", ".hidden", "/.a.tmp-1", "/var/lib/wcs-agent/"]
    static let names = ["", "x", "x/", "/x", "y/z", ".tmp", "control.sock", "a//b"]

    @Test func joinedIsAppendingPathComponent() {
        for directory in Self.paths {
            for name in Self.names {
                #expect(PathName.joined(directory, name) == (directory as NSString).appendingPathComponent(name),
                        "\"\(directory)\" + \"\(name)\"")
            }
        }
    }

    @Test func lastComponentIsLastPathComponent() {
        for path in Self.paths {
            #expect(PathName.lastComponent(path) == (path as NSString).lastPathComponent, "\"\(path)\"")
        }
    }

    /// Not for a one-character relative path (`a`, `a/`): corelibs Foundation traps there (in
    /// `_startOfLastPathComponent`; `wcs-agent doctor` with `--audio-sink record:r` crashed with
    /// SIGILL); `PathName` answers empty.
    @Test func parentIsDeletingLastPathComponent() {
        #expect(PathName.parent("a") == "" && PathName.parent("a/") == "")
        for path in Self.paths where path != "a" && path != "a/" {
            #expect(PathName.parent(path) == (path as NSString).deletingLastPathComponent, "\"\(path)\"")
        }
    }

    @Test func doubledSlashes() {
        #expect(PathName.lastComponent("//") == "/" && PathName.parent("//") == "/")
        #expect(PathName.lastComponent("a//b") == "b" && PathName.parent("a//b") == "a")
        #expect(PathName.lastComponent("//a//b//") == "b" && PathName.parent("//a//b//") == "/a")
        #expect(PathName.joined("a//", "b") == "a//b", "joining changes neither part")
    }

    @Test func examples() {
        #expect(PathName.joined("/var/lib/wcs-agent/", "token.json") == "/var/lib/wcs-agent/token.json")
        #expect(PathName.lastComponent("/var/lib/wcs-agent/token.json") == "token.json")
        #expect(PathName.parent("/var/lib/wcs-agent/token.json") == "/var/lib/wcs-agent")
        #expect(PathName.parent("/token.json") == "/")
    }
}
