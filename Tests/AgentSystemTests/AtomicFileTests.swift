import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite struct AtomicFileTests {
    let dir = ScratchDirectory()

    @Test func writesContentWithTheRequestedMode() throws {
        let path = dir.file("a.json")
        try AtomicFile.write(Data("one".utf8), to: path, mode: 0o600)
        #expect(contents(path) == "one")
        #expect(permissions(path) == 0o600)
        try AtomicFile.write(Data("two".utf8), to: path, mode: 0o640)
        #expect(contents(path) == "two")
        #expect(permissions(path) == 0o640)
        #expect(listing(dir.path) == ["a.json"])  // no temporary files left behind
    }

    @Test func failedRenameKeepsTheOldEntryAndRemovesTheTemporaryFile() throws {
        // The target is a non-empty directory: rename(2) fails after the data was written.
        let target = dir.file("occupied")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        dir.write("occupied/keep", "kept")
        let error = #expect(throws: SystemCallError.self) { try AtomicFile.write(Data("new".utf8), to: target, mode: 0o600) }
        #expect(error?.description.hasPrefix("cannot replace \(target): ") == true)
        #expect(contents(dir.file("occupied/keep")) == "kept")
        #expect(listing(dir.path) == ["occupied"])
    }

    @Test(.enabled(if: canMakeDirectoriesUnwritable, "as root, needs chattr +i on /tmp's file system"))
    func unwritableDirectoryLeavesTheOldFileIntact() throws {
        let path = dir.write("token.json", "old")
        let restore = try #require(makeUnwritable(dir.path), "could not make \(dir.path) unwritable")
        defer { restore() }
        let error = #expect(throws: SystemCallError.self) { try AtomicFile.write(Data("new".utf8), to: path, mode: 0o600) }
        #expect(error?.path == path)
        #expect(error?.description.contains(path) == true)
        #expect(contents(path) == "old")
        #expect(listing(dir.path) == ["token.json"])
    }

    @Test(.enabled(if: FailingWrites.canMountTmpfs, "needs root with mount rights (a 64 KiB tmpfs)"))
    func fullFilesystemLeavesTheOldFileIntact() throws {
        // A real ENOSPC: a 64 KiB tmpfs.
        let mountPoint = dir.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mount = try TemporaryMount(at: mountPoint, size: 64 * 1024)
        defer { mount.unmount() }
        let path = mountPoint + "/state.json"
        try AtomicFile.write(Data("old".utf8), to: path, mode: 0o600)
        let big = Data(repeating: 0x41, count: 1 << 20)
        let error = #expect(throws: SystemCallError.self) { try AtomicFile.write(big, to: path, mode: 0o600) }
        #expect(error?.code == ENOSPC)
        #expect(error?.description == "cannot write \(path): No space left on device (errno 28)")
        #expect(contents(path) == "old")
        #expect(listing(mountPoint) == ["state.json"])
    }

    @Test func ensureDirectoryCreatesMissingParents() throws {
        let nested = dir.file("a/b/c")
        try AtomicFile.ensureDirectory(nested, mode: 0o700)
        #expect(permissions(nested) == 0o700)
        try AtomicFile.ensureDirectory(nested, mode: 0o700)  // existing: fine
        let file = dir.write("plain", "x")
        #expect(throws: SystemCallError("use directory", path: file, code: ENOTDIR)) { try AtomicFile.ensureDirectory(file, mode: 0o700) }
    }
}

/// Whether `makeUnwritable` works here (probed once on a scratch directory).
let canMakeDirectoriesUnwritable: Bool = {
    let probe = ScratchDirectory()
    guard let restore = makeUnwritable(probe.path) else { return false }
    restore()
    return true
}()

/// Makes `directory` refuse new entries: chmod for ordinary users, the immutable attribute for
/// root (which ignores permissions). Returns the undo action, or nil when not possible.
func makeUnwritable(_ directory: String) -> (() -> Void)? {
    if geteuid() != 0 {
        chmod(directory, 0o500)
        return { chmod(directory, 0o700) }
    }
    guard (try? run("/usr/bin/chattr", ["+i", directory]).status) == 0 else { return nil }
    return { _ = try? run("/usr/bin/chattr", ["-i", directory]) }
}
