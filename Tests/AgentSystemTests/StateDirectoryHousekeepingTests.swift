import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Start-up care of the state directory: mode tightened, temporary token copies of killed writers
/// removed, everything else (and a live writer's file) kept.
@Suite struct StateDirectoryHousekeepingTests {
    let dir = ScratchDirectory()

    /// The pid of a process that has exited (and been reaped).
    private func deadPid() throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func temporaryNamesRoundTripAndOtherNamesAreNotTemporaries() {
        let name = AtomicFile.temporaryName(for: "token.json")
        #expect(AtomicFile.temporaryWriter(name) == getpid())
        for other in ["token.json", ".token.json", "token.json.tmp-12-ab", ".token.json.tmp-x-ab", ".token.json.tmp-12-",
                      ".token.json.tmp-12-zz", ".token.json.tmp--5-ab", ".token.json.corrupt-20261201T101010Z"] {
            #expect(AtomicFile.temporaryWriter(other) == nil, "\(other)")
        }
    }

    @Test func firstLoadTightensTheDirectoryAndRemovesTemporariesOfKilledWriters() throws {
        let state = dir.file("state")
        #expect(mkdir(state, 0o755) == 0)
        chmod(state, 0o755)
        let dead = try deadPid()
        let stale = ".token.json.tmp-\(dead)-1f2e3d"
        let live = ".token.json.tmp-\(getpid())-abc"
        for name in [stale, live, "notes.txt"] {
            _ = FileManager.default.createFile(atPath: state + "/" + name, contents: Data("{\"token\":\"x\"}".utf8))
        }
        let store = TokenStore(directory: state)
        #expect(try store.load() == nil)
        #expect(permissions(state) == 0o700)
        #expect(listing(state) == [live, "notes.txt"].sorted())
        // Only the first load does it: a later stale file stays until the next start.
        _ = FileManager.default.createFile(atPath: state + "/" + stale, contents: Data())
        #expect(try store.load() == nil)
        #expect(listing(state).contains(stale))
    }

    @Test func aMissingDirectoryIsFine() {
        #expect(StateDirectoryHousekeeping.run(directory: dir.file("absent")) == [])
        #expect(permissions(dir.file("absent")) == nil)
    }
}
