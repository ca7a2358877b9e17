import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite struct TokenStoreTests {
    let dir = ScratchDirectory()

    @Test func roundTripCreatesPrivateDirectoryAndFile() throws {
        let store = TokenStore(directory: dir.file("state/nested"))
        #expect(try store.load() == nil)
        let token = StoredToken(server: "wss://h/ws", token: "tok-\(UUID().uuidString)", sessionId: "sess-1",
                                savedAt: Date(timeIntervalSince1970: 1_795_975_200.25))
        try store.save(token)
        #expect(store.path == dir.file("state/nested/token.json"))
        #expect(permissions(dir.file("state/nested")) == 0o700)
        #expect(permissions(store.path) == 0o600)
        #expect(try store.load() == token)
        let noSession = StoredToken(server: "ws://h", token: "tok-\(UUID().uuidString)", savedAt: Date(timeIntervalSince1970: 5))
        try store.save(noSession)
        #expect(try store.load() == noSession)
        #expect(listing(store.directory) == ["token.json"])
    }

    @Test func clearRemovesTheFileAndToleratesAbsence() throws {
        let store = TokenStore(directory: dir.path)
        try store.save(StoredToken(server: "ws://h", token: "tok-\(UUID().uuidString)"))
        try store.clear()
        #expect(try store.load() == nil)
        try store.clear()
    }

    @Test func tooOpenFileIsTightenedTo0600() throws {
        let store = TokenStore(directory: dir.path)
        let token = StoredToken(server: "ws://h", token: "tok-\(UUID().uuidString)", savedAt: Date(timeIntervalSince1970: 7))
        try store.save(token)
        chmod(store.path, 0o644)
        #expect(try store.load() == token)
        #expect(permissions(store.path) == 0o600)
    }

    @Test func corruptFileIsMovedAsideAndReportedWithoutItsContent() throws {
        let secret = "tok-SECRET-\(UUID().uuidString)"
        let store = TokenStore(directory: dir.path)
        let broken = "{\"server\": \"ws://h\", \"token\": \"\(secret)\", "
        dir.write("token.json", broken, mode: 0o600)
        let error = #expect(throws: StorageError.self) { try store.load() }
        let reported = try #require(error)
        #expect(reported.reason == "not valid JSON")
        #expect(!reported.description.contains(secret))
        let moved = try #require(reported.movedTo)
        #expect(moved.hasPrefix(store.path + ".corrupt-"))
        #expect(contents(moved) == broken)  // never silently lost
        #expect(try store.load() == nil)
    }

    @Test func structurallyWrongFilesNameTheProblem() throws {
        let store = TokenStore(directory: dir.path)
        dir.write("token.json", "{\"server\": \"ws://h\", \"savedAt\": \"2026-11-29T18:00:00.000Z\"}", mode: 0o600)
        #expect(throws: StorageError.self) { try store.load() }
        let moved = listing(dir.path).filter { $0.hasPrefix("token.json.corrupt-") }
        #expect(moved.count == 1)

        dir.write("token.json", "{\"server\": 5, \"token\": \"abcd\", \"savedAt\": \"2026-11-29T18:00:00.000Z\"}", mode: 0o600)
        let wrongType = #expect(throws: StorageError.self) { try store.load() }
        #expect(wrongType?.reason == "field \"server\" has the wrong type")
        #expect(listing(dir.path).filter { $0.hasPrefix("token.json.corrupt-") }.count == 2)

        dir.write("token.json", "{\"server\": \"ws://h\", \"token\": \"\", \"savedAt\": \"2026-11-29T18:00:00.000Z\"}", mode: 0o600)
        let empty = #expect(throws: StorageError.self) { try store.load() }
        #expect(empty?.reason == "empty token")
    }

    @Test func missingFieldIsNamed() throws {
        let store = TokenStore(directory: dir.path)
        dir.write("token.json", "{\"server\": \"ws://h\", \"savedAt\": \"2026-11-29T18:00:00.000Z\"}", mode: 0o600)
        let error = #expect(throws: StorageError.self) { try store.load() }
        #expect(error?.reason == "missing field \"token\"")
    }

    @Test func saveErrorsAndDescriptionsNeverContainTheToken() throws {
        let secret = "tok-NEVER-\(UUID().uuidString)"
        let token = StoredToken(server: "ws://h", token: secret)
        #expect(!token.description.contains(secret))
        let blocker = dir.write("not-a-dir", "x")
        let store = TokenStore(directory: blocker + "/state")
        let error = #expect(throws: SystemCallError.self) { try store.save(token) }
        #expect(error.map { !$0.description.contains(secret) } == true)
        #expect(SecretRedactor.redact("token \(secret) leaked") == "token [redacted] leaked")
    }
}
