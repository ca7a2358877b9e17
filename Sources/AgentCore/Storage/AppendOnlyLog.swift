import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A JSON Lines file that only grows: one record per line (e.g. the call journal).
///
/// Each `append` writes the whole line with one `write(2)` on an `O_APPEND` descriptor and
/// `fsync`s it, so a crash leaves at most one partial final line. If the file does not end with a
/// newline (a torn line from an earlier crash), the next append first terminates it so the new
/// record stays intact. `read` skips a final partial line and reports it, and reports complete
/// lines that do not decode. Use one writer process per file.
public struct AppendOnlyLog: Sendable {
    /// What `read` found.
    public struct Contents<Record: Sendable>: Sendable {
        /// Records decoded from complete lines, in file order.
        public var records: [Record]
        /// 1-based numbers of complete lines that were not valid records.
        public var invalidLines: [Int]
        /// Bytes of a final line without a newline (an interrupted append), skipped; 0 if none.
        public var tornTailBytes: Int
    }

    /// The file path.
    public let path: String
    /// Permissions used when the file is created.
    public let mode: mode_t

    /// A log at `path`; the file is created with `mode` on first append.
    public init(path: String, mode: mode_t = 0o600) {
        self.path = path
        self.mode = mode
    }

    /// Appends `record` as one compact JSON line. Throws `SystemCallError` or an encoding error.
    public func append<Record: Encodable>(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var line = try encoder.encode(record)
        line.append(UInt8(ascii: "\n"))

        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemCallError.current("open", path: path) }
        defer { FileDescriptorIO.close(fd) }
        if endsWithPartialLine(fd) { line.insert(UInt8(ascii: "\n"), at: 0) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 { throw SystemCallError.current("append to", path: path) }
        if written != line.count { throw SystemCallError("append to", path: path, code: EIO) }
        guard fsync(fd) == 0 else { throw SystemCallError.current("sync", path: path) }
    }

    /// Reads every record. A missing file reads as empty. Throws `SystemCallError` on I/O errors.
    public func read<Record: Decodable & Sendable>(_ type: Record.Type) throws -> Contents<Record> {
        let data: Data
        do {
            data = try FileReading.readAll(path: path, limit: Int.max)
        } catch {
            if error.code == ENOENT { return Contents(records: [], invalidLines: [], tornTailBytes: 0) }
            throw error
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var contents = Contents<Record>(records: [], invalidLines: [], tornTailBytes: 0)
        var lineStart = data.startIndex
        var lineNumber = 0
        while lineStart < data.endIndex {
            guard let newline = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) else {
                contents.tornTailBytes = data.endIndex - lineStart
                break
            }
            lineNumber += 1
            let line = data[lineStart..<newline]
            lineStart = newline + 1
            if line.isEmpty { continue }
            if let record = try? decoder.decode(Record.self, from: line) {
                contents.records.append(record)
            } else {
                contents.invalidLines.append(lineNumber)
            }
        }
        return contents
    }

    private func endsWithPartialLine(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return false }
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return false }
        defer { FileDescriptorIO.close(reader) }
        var last: UInt8 = 0
        return pread(reader, &last, 1, off_t(info.st_size - 1)) == 1 && last != UInt8(ascii: "\n")
    }
}
