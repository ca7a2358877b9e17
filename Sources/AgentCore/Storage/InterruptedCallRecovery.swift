import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// At start: calls that a killed or crashed agent held get their record. Each `calls-open-*.json`
/// whose writer process is gone is read; every call in it without a record in `calls.jsonl` yet is
/// appended as `interrupted` (its `ended` is the file's last write, the last moment the agent is
/// known to have held the call), then the file is removed.
///
/// Runs on the caller's thread from `StateDirectoryHousekeeping` (the daemon's first token load),
/// before the agent's own journal writes anything. Files of live processes (this one included) are
/// left alone, so a reload that builds a new agent never touches the calls of the running one.
enum InterruptedCallRecovery {
    /// Records the calls of dead writers in `directory`; returns the records appended.
    @discardableResult
    static func run(directory: String) -> [CallRecord] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        let files = names.filter { name in
            guard let writer = OpenCallsFile.writer(ofFileNamed: name) else { return false }
            return writer != getpid() && !(kill(writer, 0) == 0 || errno == EPERM)
        }
        guard !files.isEmpty else { return [] }
        let store = CallRecordStore(directory: directory)
        var recorded = Set(((try? store.read()) ?? []).map(\.callId))
        var appended: [CallRecord] = []
        for name in files {
            let file = OpenCallsFile(path: PathName.joined(directory, name))
            guard let (calls, written) = readLogged(file) else { continue }
            var complete = true
            for call in calls where !recorded.contains(call.callId) {
                let record = CallRecord(callId: call.callId, direction: call.direction, caller: call.caller, callee: call.callee,
                                        displayName: call.displayName, started: call.started, answered: call.answered,
                                        ended: max(written, call.answered ?? call.started), endResult: .interrupted,
                                        info: "the agent stopped during the call (killed or crashed); recorded at the next start")
                do {
                    try store.append(record)
                    recorded.insert(call.callId)
                    appended.append(record)
                } catch {
                    complete = false
                    Log.error("calls", "cannot record interrupted call \(call.callId): \(error)")
                }
            }
            if complete { try? file.write([]) }
        }
        if !appended.isEmpty {
            Log.notice("calls", "recorded \(appended.count) call(s) the previous run held when it stopped: "
                + appended.map(\.callId).joined(separator: ", "))
        }
        return appended
    }

    private static func readLogged(_ file: OpenCallsFile) -> (calls: [OpenCall], written: Date)? {
        do {
            return try file.read()
        } catch {
            Log.error("calls", "cannot read \(file.path) (calls open when the agent stopped): \(error); left in place")
            return nil
        }
    }
}
