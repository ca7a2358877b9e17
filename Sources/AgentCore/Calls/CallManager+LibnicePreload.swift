import AudioPipe

/// Loading libnice ahead of a likely call. The agent loads libnice (and the ~29 libraries only it
/// pulls in) at the first call instead of at start (`NiceLibrary`); when a call becomes likely, a
/// push or a `reconnect` that may bring a pushed call, or a call announced by the server, the load
/// starts on a Dispatch worker so that answering does not wait for it.
///
/// Runs on: any thread (nonisolated): it only starts the load and returns.
extension CallManager {
    /// Starts loading libnice unless it is loaded; `reason` goes to the debug log.
    nonisolated func expectCall(_ reason: String) {
        NiceLibrary.preload(reason: reason)
    }
}
