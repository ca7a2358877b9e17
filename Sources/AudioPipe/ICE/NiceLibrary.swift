import CNice
import MainLoop
import Synchronization

/// libnice, loaded at the first ICE use instead of at process start.
///
/// The agent does not link libnice: `CNice` defines the libnice functions the ICE code calls and
/// forwards them to the library it opens with `dlopen("libnice.so.10")` the first time one is
/// needed (see Sources/CNice/include/CNice.h). An idle agent, waiting for a push most of its life,
/// thus maps neither libnice nor the 36 libraries only it pulls in (GIO, GnuTLS, ICU, libsoup,
/// gupnp-igd, krb5, ...: 6 MB of idle RSS in the static build).
/// The load takes milliseconds (dlopen with every relocation, measured in `Loaded.milliseconds`),
/// so the agent starts it early when a call is likely (`preload`, on a push or an incoming call)
/// and the call path awaits it off the loop thread (`loaded()`); `ICEAgent` checks it
/// (`require()`) and fails with `ICEError.libraryUnavailable` when libnice cannot be loaded.
///
/// Runs on: any thread. The load itself runs once (the first caller's thread, or a thread of its
/// own for `preload`/`loaded()`); a caller that needs it while it runs waits for it.
public enum NiceLibrary {
    /// A loaded libnice: the file mapped and how long the load took.
    public struct Loaded: Sendable, Equatable {
        /// The library file, symlinks resolved (e.g. `/usr/lib/x86_64-linux-gnu/libnice.so.10.13.1`).
        public let path: String
        /// Wall time of dlopen and of resolving every function, in milliseconds.
        public let milliseconds: Double

        /// The version in the file name after `.so.` (e.g. `10.13.1`), if any.
        public var fileVersion: String? {
            let file = path.split(separator: "/").last ?? Substring(path)
            guard let range = file.firstRange(of: ".so."), range.upperBound < file.endIndex else { return nil }
            return String(file[range.upperBound...])
        }
    }

    /// The soname the agent opens.
    public static let soname = CNICE_LIBRARY_SONAME

    /// The libnice version whose headers the agent was built against (e.g. `0.1.21`); the
    /// library has no run-time version call, `Loaded.fileVersion` is the file's.
    public static let headerVersion = "\(NICE_VERSION_MAJOR).\(NICE_VERSION_MINOR).\(NICE_VERSION_MICRO)"

    /// Loads libnice (once) and returns the outcome. Blocks the calling thread while the load
    /// runs: not for the loop thread (use `loaded()`).
    public static func load() -> Result<Loaded, ICEError> { outcome }

    /// Whether libnice is loaded; never starts a load.
    public static var isLoaded: Bool { cnice_library_is_loaded() != 0 }

    /// Why libnice could not be loaded, once a load failed; nil when it loaded or no load ran.
    /// Never starts a load.
    public static var unavailableReason: String? { cnice_library_error().map { String(cString: $0) } }

    /// Starts the load on its own short-lived thread and returns at once (nothing when a load
    /// already ran or runs): for the moment a call becomes likely, so that answering it does not
    /// wait for the load. `reason` goes to the debug log.
    public static func preload(reason: String) {
        guard !hasOutcome else { return }
        startLoad(waiter: nil, reason: "ahead of a call: \(reason)")
    }

    /// The outcome of the load, which runs on its own thread when it has not yet: the caller's
    /// thread (the loop, an actor on the shared pool) never blocks on dlopen.
    public static func loaded() async -> Result<Loaded, ICEError> {
        if hasOutcome { return outcome }
        return await withCheckedContinuation { startLoad(waiter: $0, reason: "for a call") }
    }

    /// Throws `ICEError.libraryUnavailable` with the loader's reason unless libnice is loaded
    /// (loading it first, on the caller's thread, when no load ran yet).
    public static func require() throws(ICEError) {
        if case .failure(let error) = outcome { throw error }
    }

    /// Whether the load finished, either way; never starts one.
    private static var hasOutcome: Bool { isLoaded || cnice_library_error() != nil }

    private typealias Waiter = CheckedContinuation<Result<Loaded, ICEError>, Never>

    /// The background load: not started, or running with the callers of `loaded()` waiting for it.
    private enum Phase {
        case idle
        case running([Waiter])
        case finished
    }

    private static let phase = Mutex<Phase>(.idle)

    /// Starts the load thread unless it runs or ran, and queues `waiter` for its outcome (`reason`
    /// goes to the debug log when the thread starts). One
    /// thread, not a Dispatch worker: dlopen blocks for milliseconds and a second caller would
    /// block another worker on the first one's load, which can starve the shared pools of a
    /// 2-core machine (the answer's own tasks among them).
    private static func startLoad(waiter: Waiter?, reason: String) {
        let start: Bool? = phase.withLock { phase in
            switch phase {
            case .finished:
                return nil
            case .idle:
                phase = .running(waiter.map { [$0] } ?? [])
                return true
            case .running(var waiters):
                if let waiter { waiters.append(waiter) }
                phase = .running(waiters)
                return false
            }
        }
        guard let start else {
            waiter?.resume(returning: outcome)
            return
        }
        guard start else { return }
        Log.debug("ice", "loading libnice \(reason)")
        NamedThread.start("libnice load") {
            let result = outcome
            let waiters = phase.withLock { phase -> [Waiter] in
                defer { phase = .finished }
                if case .running(let waiters) = phase { return waiters }
                return []
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    /// The one load (Swift runs a static's initializer once, other callers wait for it), logged.
    private static let outcome: Result<Loaded, ICEError> = {
        guard cnice_library_load() != 0, let path = cnice_library_path() else {
            let reason = cnice_library_error().map { String(cString: $0) } ?? "unknown reason"
            Log.error("ice", "libnice cannot be loaded, calls will fail: \(reason)")
            return .failure(.libraryUnavailable(reason))
        }
        let loaded = Loaded(path: String(cString: path), milliseconds: cnice_library_load_milliseconds())
        Log.info("ice", "libnice loaded from \(loaded.path) in \((loaded.milliseconds * 10).rounded() / 10) ms")
        return .success(loaded)
    }()
}
