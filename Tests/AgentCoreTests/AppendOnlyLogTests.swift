import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite struct AppendOnlyLogTests {
    struct Record: Codable, Sendable, Equatable {
        var call: String
        var seconds: Int
    }

    let dir = ScratchDirectory()

    @Test func appendsOneLinePerRecordWithPrivateMode() throws {
        let log = AppendOnlyLog(path: dir.file("calls.jsonl"))
        #expect(try log.read(Record.self).records.isEmpty)
        let records = (1...3).map { Record(call: "c\($0)", seconds: $0 * 10) }
        for record in records { try log.append(record) }
        #expect(permissions(log.path) == 0o600)
        #expect(contents(log.path)?.split(separator: "\n").count == 3)
        let read = try log.read(Record.self)
        #expect(read.records == records)
        #expect(read.invalidLines.isEmpty && read.tornTailBytes == 0)
    }

    @Test func tornLastLineIsSkippedReportedAndNeverGluedToTheNextRecord() throws {
        let log = AppendOnlyLog(path: dir.file("calls.jsonl"))
        try log.append(Record(call: "a", seconds: 1))
        try log.append(Record(call: "b", seconds: 2))
        // Simulate a crash in the middle of an append: a partial line without a newline.
        let torn = "{\"call\":\"c\",\"sec"
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        handle.seekToEndOfFile()
        handle.write(Data(torn.utf8))
        handle.closeFile()

        let afterCrash = try log.read(Record.self)
        #expect(afterCrash.records.map(\.call) == ["a", "b"])
        #expect(afterCrash.tornTailBytes == torn.utf8.count)

        try log.append(Record(call: "d", seconds: 4))
        let later = try log.read(Record.self)
        #expect(later.records.map(\.call) == ["a", "b", "d"])
        #expect(later.invalidLines == [3])
        #expect(later.tornTailBytes == 0)
    }

    @Test func concurrentAppendsStayWholeLines() async throws {
        let log = AppendOnlyLog(path: dir.file("calls.jsonl"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for n in 0..<25 { try log.append(Record(call: "w\(writer)-\(n)", seconds: n)) }
                }
            }
            try await group.waitForAll()
        }
        let read = try log.read(Record.self)
        #expect(read.records.count == 100)
        #expect(read.invalidLines.isEmpty)
    }
}
