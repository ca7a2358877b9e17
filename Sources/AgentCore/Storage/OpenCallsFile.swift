import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One call a running agent holds, as the open-calls file keeps it: enough for its record.
struct OpenCall: Codable, Sendable, Equatable {
    var callId: String
    var direction: String
    var caller: String?
    var callee: String?
    var displayName: String?
    var started: Date
    var answered: Date?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id", direction, caller, callee, displayName = "display_name", started, answered
    }
}

/// `calls-open-<pid>-<n>.json` in the state directory: the calls one `CallJournal` of a running
/// agent holds, rewritten atomically (`AtomicFile`) whenever that set changes and removed when it is
/// empty. A file whose writer process is gone names calls that never got their record: the next
/// start records them as `interrupted` (`InterruptedCallRecovery`).
///
/// A plain value; written only on its journal's serial queue, read at start before any journal runs.
struct OpenCallsFile: Sendable {
    static let prefix = "calls-open-"
    let path: String

    /// The file of journal number `serial` of this process, in `directory`.
    init(directory: String, serial: Int) {
        path = PathName.joined(directory, "\(Self.prefix)\(getpid())-\(serial).json")
    }

    init(path: String) { self.path = path }

    /// The process that wrote a file of this name, or nil for other names.
    static func writer(ofFileNamed name: String) -> pid_t? {
        guard name.hasPrefix(prefix), name.hasSuffix(".json") else { return nil }
        let parts = name.dropFirst(prefix.count).dropLast(".json".count).split(separator: "-")
        guard parts.count == 2, Int(parts[1]) != nil, let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }

    /// Replaces the file with `calls`, or removes it when there are none.
    func write(_ calls: [OpenCall]) throws {
        guard !calls.isEmpty else {
            if unlink(path) != 0 && errno != ENOENT { throw SystemCallError.current("remove", path: path) }
            return
        }
        try AtomicFile.write(try Self.encoder.encode(calls), to: path, mode: 0o600)
    }

    /// The calls in the file and the time it was last written.
    func read() throws -> (calls: [OpenCall], written: Date) {
        let data = try FileReading.readAll(path: path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (try Self.decoder.decode([OpenCall].self, from: data), attributes?[.modificationDate] as? Date ?? Date())
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(CallRecordDates.format(date))
        }
        return e
    }

    private static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = CallRecordDates.parse(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return d
    }
}
