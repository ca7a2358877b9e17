import Foundation
import MainLoop

/// Writes call records to `CallRecordStore` on a serial background queue, so a slow or failing
/// disk never blocks a call; a failed write is logged, never thrown.
final class CallJournal: Sendable {
    private let store: CallRecordStore
    private let directory: String
    private let queue = DispatchQueue(label: "wcs-agent.call-journal")

    init(directory: String) {
        store = CallRecordStore(directory: directory)
        self.directory = directory
    }

    /// Appends `record` in the background; `then` runs after the attempt (e.g. the on_call_end hook).
    func write(_ record: CallRecord, then: @escaping @Sendable () -> Void = {}) {
        let store = self.store, directory = self.directory
        queue.async {
            do {
                if !FileManager.default.fileExists(atPath: directory) {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                            attributes: [.posixPermissions: 0o700])
                }
                try store.append(record)
                Log.info("calls", "call \(record.callId) recorded: \(record.endResult.rawValue)")
            } catch {
                Log.error("calls", "cannot record call \(record.callId) in \(store.path): \(error)")
            }
            then()
        }
    }
}
