import Foundation
import Testing
@testable import AgentCore

/// `PathName` gives what `NSString`'s path methods gave for the same text (the daemon's state
/// files, sockets and credentials are named with it).
@Suite struct PathNameTests {
    static let paths = ["", "/", "//", "a", "a/", "/a", "/a/", "/a/b", "/a/b/", "a/b", "a//b", "//a//b//", "/run/user/0",
                        "./x", "../x/", "/a b/c.d", "é/ü", ".hidden", "/.a.tmp-1"]
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

    @Test func parentIsDeletingLastPathComponent() {
        for path in Self.paths {
            #expect(PathName.parent(path) == (path as NSString).deletingLastPathComponent, "\"\(path)\"")
        }
    }

    @Test func examples() {
        #expect(PathName.joined("/var/lib/wcs-agent/", "token.json") == "/var/lib/wcs-agent/token.json")
        #expect(PathName.lastComponent("/var/lib/wcs-agent/token.json") == "token.json")
        #expect(PathName.parent("/var/lib/wcs-agent/token.json") == "/var/lib/wcs-agent")
        #expect(PathName.parent("/token.json") == "/")
    }
}
