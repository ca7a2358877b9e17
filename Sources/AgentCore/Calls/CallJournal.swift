import FoundationEssentials
import Dispatch
import MainLoop
import Synchronization

/// Writes call records to `CallRecordStore` on a serial background queue, so a slow or failing
/// disk never blocks a call; a failed write is logged, never thrown.
///
/// It also keeps this journal's open-calls file (`OpenCallsFile`) in step with the manager's call
/// table (`track`), on the same queue, so that a call the agent holds when it is killed is recorded
/// at the next start (`InterruptedCallRecovery`). A call leaves the file only after its record was
/// appended: a kill between the two leaves at worst a call in both, which the recovery skips.
/// Sendable: `track` and `write` are called from the manager actor, the file work runs on the queue.
final class CallJournal: Sendable {
    private let store: CallRecordStore
    private let directory: String
    private let openFile: OpenCallsFile
    private let queue = DispatchQueue(label: "wcs-agent.call-journal")
    private let tracking = Mutex(OpenCallTracking())
    private static let serials = Atomic<Int>(0)

    /// What the open-calls file must hold: the table's calls, plus calls that left the table and
    /// whose record is on its way (`recordQueued`); a call removed without a record is dropped at the
    /// next change of the table.
    private struct OpenCallTracking {
        var open: [String: OpenCall] = [:]
        var closing: [String: (call: OpenCall, recordQueued: Bool)] = [:]
        var written: [OpenCall] = []
    }

    init(directory: String) {
        store = CallRecordStore(directory: directory)
        self.directory = directory
        openFile = OpenCallsFile(directory: directory, serial: Self.serials.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// Appends `record` in the background; `then` runs after the attempt (e.g. the on_call_end hook).
    func write(_ record: CallRecord, then: @escaping @Sendable () -> Void = {}) {
        tracking.withLock { $0.closing[record.callId]?.recordQueued = true }
        let store = self.store
        queue.async { [self] in
            do {
                try ensureDirectory()
                try store.append(record)
                Log.info("calls", "call \(record.callId) recorded: \(record.endResult.rawValue)")
            } catch {
                Log.error("calls", "cannot record call \(record.callId) in \(store.path): \(error)")
            }
            tracking.withLock { _ = $0.closing.removeValue(forKey: record.callId) }
            flushOpenCalls()
            then()
        }
    }

    /// Takes the manager's call table after a change; rewrites the open-calls file (in the
    /// background) when the set of calls or what the file keeps of them changed.
    func track(_ table: [String: CallEntry]) {
        let now = Dictionary(uniqueKeysWithValues: table.map { id, call in
            (id, OpenCall(callId: id, direction: call.direction.rawValue, caller: call.caller, callee: call.callee,
                          displayName: call.displayName, started: call.started, answered: call.answeredAt))
        })
        let changed = tracking.withLock { t -> Bool in
            let unrecorded = t.closing.contains { !$0.value.recordQueued }
            guard now != t.open || unrecorded else { return false }
            t.closing = t.closing.filter { $0.value.recordQueued }
            for (id, call) in t.open where now[id] == nil { t.closing[id] = (call, false) }
            t.open = now
            return true
        }
        if changed { queue.async { [self] in flushOpenCalls() } }
    }

    /// On the queue: writes the open-calls file if what it must hold differs from what it holds.
    private func flushOpenCalls() {
        let snapshot = tracking.withLock { t -> [OpenCall]? in
            let calls = (Array(t.open.values) + t.closing.values.map(\.call)).sorted { ($0.started, $0.callId) < ($1.started, $1.callId) }
            guard calls != t.written else { return nil }
            t.written = calls
            return calls
        }
        guard let snapshot else { return }
        do {
            if !snapshot.isEmpty { try ensureDirectory() }
            try openFile.write(snapshot)
        } catch {
            Log.error("calls", "cannot update \(openFile.path) (calls to record if the agent is killed): \(error)")
        }
    }

    private func ensureDirectory() throws {
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
    }
}
