import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Delivers termination and reload signals as an `AsyncStream` instead of async-signal handlers.
///
/// Each signal's default action is first set to `SIG_IGN` (so a signal arriving during setup does
/// not kill the process), then a `DispatchSource` signal source reports it. Cancelling the stream
/// (or ending the iteration) cancels the sources; the signals stay ignored afterwards, so create the
/// stream once at start-up and keep it for the life of the process.
public enum SignalHandling {
    /// The signals the daemon reacts to: SIGTERM and SIGINT (stop), SIGHUP (reload).
    public static let daemonSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// A stream yielding each received signal number from `signals`.
    public static func signals(_ signals: [Int32] = daemonSignals) -> AsyncStream<Int32> {
        let queue = DispatchQueue(label: "wcs-agent.signals")
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let holder = SourceHolder(sources)
        continuation.onTermination = { _ in holder.cancelAll() }
        return stream
    }
}

/// Keeps the dispatch sources alive until the stream ends.
private final class SourceHolder: @unchecked Sendable { // @unchecked: Dispatch signal sources (thread-safe) are not marked Sendable on Linux
    private let sources: [any DispatchSourceSignal]

    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }

    func cancelAll() {
        for source in sources { source.cancel() }
    }
}
