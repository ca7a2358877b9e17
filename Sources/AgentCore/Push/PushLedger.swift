import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// The durable per-call-id dedupe of pushes (`pushes.jsonl` in the state directory): every push
/// the agent takes is recorded before it is acted on, so a push redelivered after a restart (an
/// MQTT broker's, a webhook sender's retry) never rings twice, and a push taken but not finished
/// when the agent stopped is finished at the next start (`pending`).
///
/// A call id is `taken` (recorded, its wake in progress or still to do), `done` (its wake ended:
/// ringing, missed), or `released` (the session did not come back and the sender was told so: a
/// later push for it is new). Each change is one fsync'd line (`AppendOnlyLog`); when the file holds
/// twice `capacity` lines it is rewritten (`AtomicFile`) with the pending ids and the `capacity`
/// most recent finished ones, so it stays bounded. A push whose record cannot be written is still
/// known in memory (and the caller told it is not durable).
///
/// Runs on: any thread; the state sits in a `Mutex` and each change writes under it (one fsync),
/// so two sources taking the same call id at once cannot both see it as new.
public final class PushLedger: Sendable {
    /// One line of the file.
    struct Line: Codable, Sendable {
        var callId: String
        var state: String
        var source: String?
        var uuid: String?
        var handle: String?
        var outcome: String?

        enum CodingKeys: String, CodingKey {
            case callId = "call_id", state, source, uuid, handle, outcome
        }
    }

    /// What `take` found.
    public struct Taken: Sendable, Equatable {
        /// The call id was not known: the caller acts on the push.
        public let isNew: Bool
        /// The record is on disk (false: it could not be written; known in memory only).
        public let isDurable: Bool
    }

    /// The file name in the state directory.
    public static let fileName = "pushes.jsonl"

    /// The file.
    public let path: String
    /// Finished call ids kept (pending ones are always kept).
    public let capacity: Int
    private let directory: String
    private let state = Mutex(LedgerState())

    /// A ledger in `directory` (created 0700 on the first write); read on first use.
    public init(directory: String, capacity: Int = 1024) {
        self.directory = directory
        self.path = PathName.joined(directory, Self.fileName)
        self.capacity = max(1, capacity)
    }

    /// Records `payload` as taken when its call id is not known (or was released). Durable before it returns.
    public func take(_ payload: PushPayload, source: String) -> Taken {
        state.withLock { s in
            load(&s)
            if let known = s.entries[payload.callId], known.state != "released" { return Taken(isNew: false, isDurable: true) }
            let line = Line(callId: payload.callId, state: "taken", source: source, uuid: payload.uuid, handle: payload.handle)
            let durable = append(line, &s)
            return Taken(isNew: true, isDurable: durable)
        }
    }

    /// Whether `callId` is known (taken or done).
    public func contains(_ callId: String) -> Bool {
        state.withLock { s in
            load(&s)
            return s.entries[callId].map { $0.state != "released" } ?? false
        }
    }

    /// Marks `callId` done with the push's outcome.
    public func finish(_ callId: String, outcome: String) {
        state.withLock { s in
            load(&s)
            guard var line = s.entries[callId] else { return }
            line.state = "done"
            line.outcome = outcome
            _ = append(line, &s)
        }
    }

    /// Forgets `callId`: its wake did not happen and the sender may retry.
    public func release(_ callId: String) {
        state.withLock { s in
            load(&s)
            guard var line = s.entries[callId], line.state == "taken" else { return }
            line.state = "released"
            _ = append(line, &s)
        }
    }

    /// The pushes taken but not finished (by a process that stopped), oldest first, with their source.
    public func pending() -> [(payload: PushPayload, source: String)] {
        state.withLock { s in
            load(&s)
            return s.order.compactMap { id in
                guard let line = s.entries[id], line.state == "taken" else { return nil }
                return (PushPayload(callId: id, uuid: line.uuid, handle: line.handle), line.source ?? "unknown")
            }
        }
    }

    // MARK: - File (under the lock)

    private func load(_ s: inout LedgerState) {
        guard !s.loaded else { return }
        s.loaded = true
        let contents: AppendOnlyLog.Contents<Line>
        do {
            contents = try AppendOnlyLog(path: path).read(Line.self)
        } catch {
            Log.error("push", "cannot read the push ledger \(path): \(error); pushes redelivered from before this start may ring again")
            return
        }
        if !contents.invalidLines.isEmpty || contents.tornTailBytes > 0 {
            Log.warning("push", "push ledger \(path): skipped \(contents.invalidLines.count) unreadable line(s) and \(contents.tornTailBytes) byte(s) of a torn last line")
        }
        for line in contents.records { remember(line, &s) }
        s.lines = contents.records.count + contents.invalidLines.count
        trim(&s)
    }

    private func remember(_ line: Line, _ s: inout LedgerState) {
        if s.entries.updateValue(line, forKey: line.callId) != nil { s.order.removeAll { $0 == line.callId } }
        s.order.append(line.callId)
    }

    /// Keeps the pending ids and the `capacity` most recent finished ones.
    private func trim(_ s: inout LedgerState) {
        let finished = s.order.filter { s.entries[$0]?.state != "taken" }
        guard finished.count > capacity else { return }
        let dropped = Set(finished.prefix(finished.count - capacity))
        s.order.removeAll { dropped.contains($0) }
        for id in dropped { s.entries[id] = nil }
    }

    private func append(_ line: Line, _ s: inout LedgerState) -> Bool {
        remember(line, &s)
        trim(&s)
        do {
            try AtomicFile.ensureDirectory(directory, mode: 0o700)
            if s.lines + 1 > 2 * capacity {
                try rewrite(s)
                s.lines = s.order.count
            } else {
                try AppendOnlyLog(path: path).append(line)
                s.lines += 1
            }
            return true
        } catch {
            Log.error("push", "cannot record push \(line.callId) (\(line.state)) in \(path): \(error)")
            return false
        }
    }

    /// Replaces the file with one line per id kept.
    private func rewrite(_ s: LedgerState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for id in s.order {
            guard let line = s.entries[id] else { continue }
            data.append(try encoder.encode(line))
            data.append(UInt8(ascii: "\n"))
        }
        try AtomicFile.write(data, to: path, mode: 0o600)
    }
}

/// The ledger in memory.
private struct LedgerState: Sendable {
    var loaded = false
    /// Call ids, oldest change first.
    var order: [String] = []
    var entries: [String: PushLedger.Line] = [:]
    /// Lines in the file.
    var lines = 0
}
