import AgentCore
import AudioPipe

/// The doctor's check of libnice, which the daemon loads only at its first call (`NiceLibrary`):
/// a missing or broken libnice would otherwise show only when a call comes in. The check loads it
/// in the doctor's own process, as the daemon would, and reports the file and the time the load
/// took, or the loader's error. Runs on the CLI's thread (a blocking load of a few ms).
enum DoctorLibraryChecks {
    static func libnice() -> DoctorVerdict {
        switch NiceLibrary.load() {
        case .success(let loaded):
            let milliseconds = (loaded.milliseconds * 10).rounded() / 10
            return .ok("libnice", "\(loaded.path) loads in \(milliseconds) ms (built against libnice \(NiceLibrary.headerVersion))")
        case .failure(let error):
            let reason: String
            if case .libraryUnavailable(let text) = error { reason = text } else { reason = "\(error)" }
            return .failure("libnice", "\(reason): calls cannot be answered; install libnice10 (apt install libnice10)")
        }
    }
}
