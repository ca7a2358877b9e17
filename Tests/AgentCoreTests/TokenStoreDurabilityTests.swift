import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// "Never loses its token": a save either leaves the new token or the old one, never neither.
@Suite(.serialized) struct TokenStoreDurabilityTests {
    let dir = ScratchDirectory()

    /// A token as long as `length` characters (real tokens vary; a long one needs more than a page).
    static func token(_ tag: String, length: Int = 40) -> StoredToken {
        let body = String(repeating: tag, count: max(1, length / max(1, tag.count)))
        return StoredToken(server: "wss://wcs.example/ws", token: body, sessionId: "sess-\(tag)",
                           savedAt: Date(timeIntervalSince1970: 1_795_975_200))
    }

    @Test func aSaveReplacesTheFileRatherThanRewritingIt() throws {
        let store = TokenStore(directory: dir.path)
        try store.save(Self.token("first"))
        let before = try #require(inode(store.path))
        try store.save(Self.token("second"))
        let after = try #require(inode(store.path))
        #expect(before != after, "the new token must go to a new file renamed over the old one")
        #expect(try store.load() == Self.token("second"))
        #expect(listing(dir.path) == ["token.json"], "no temporary file left behind")
    }

    @Test(.enabled(if: FailingWrites.canMountTmpfs || geteuid() != 0,
                   "needs root with mount rights (a full tmpfs) or an ordinary user (a file-size limit)"))
    func aSaveOnAFullDiskKeepsThePreviousTokenLoadable() throws {
        let state = dir.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let store = TokenStore(directory: state)
        let old = Self.token("old")
        let new = Self.token("new-and-long-", length: 6000)  // needs a second page: does not fit
        let failure = try FailingWrites.withFullDisk(at: state, budget: 4096, prepare: { try store.save(old) }) { () throws -> [String] in
            let error = #expect(throws: SystemCallError.self) { try store.save(new) }
            let code = error?.code
            #expect(code == ENOSPC || code == EFBIG, "\(String(describing: error))")
            let description = error?.description ?? ""
            #expect(!description.contains(new.token))
            // What the agent sees at its next start: the previous token, intact.
            #expect(try store.load() == old)
            return listing(state).filter { $0 != ".filler" }
        }
        #expect(failure == ["token.json"], "the failed save's temporary file is removed")
    }

    private func inode(_ path: String) -> ino_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : nil
    }
}
