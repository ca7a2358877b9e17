import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT (Ctrl-C) and SIGTERM into reasons on `stop`. Lives outside main.swift so the
/// handlers are not main-actor closures: they run on a dispatch queue.
enum StopSignals {
    /// Installs the handlers; keep the returned sources alive while waiting.
    static func install(_ stop: AsyncStream<String>.Continuation) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "wcs-session-example.signals")
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { stop.yield(number == SIGINT ? "interrupted" : "terminated") }
            source.resume()
            return source
        }
    }
}
