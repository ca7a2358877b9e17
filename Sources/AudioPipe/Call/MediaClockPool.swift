import MainLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The media clocks of the process, grown with the load: one clock thread (`wcs-media`) carries
/// every call until it is busy; then a second one (`wcs-media-2`) starts, and so on up to one per
/// online CPU. Each new call is placed once, when its engine is made (`clockForNewCall`), by the
/// clocks' measured round times (`MediaClockPlacement`), and stays on that clock for its lifetime
/// (a call's codecs, receive path and sockets belong to its clock thread; no migration).
///
/// The first clock's thread starts with the first call and then stays (an idle agent has no clock
/// thread; one that had calls keeps one, as before the pool). An extra clock's thread ends when it
/// has had no call for `idleLinger` (hysteresis: calls that come and go do not start and stop
/// threads each time), so the process returns to its idle thread count; the clock itself stays in
/// the pool and starts a thread again when a call is placed on it.
///
/// Why this limit (`defaultBusyLimit`, 50 % of the period), from the 2026-12-01 scaling runs (2
/// cores, cheap far ends, Benchmarks/README.md): a call costs a clock about 0.4 ms per round (2 % of
/// a core); one clock at 34 % busy sent 1.9 % of its frames late (10 ms past their slot), at 65-70 %
/// 3 % on a quiet machine and 38 % with other work running, while two clocks at 32 % each sent
/// 0.1 % late. Rounds are timed by the wall clock, so a preempted clock on a busy machine looks
/// busier and gets help sooner.
///
/// `WCS_MEDIA_CLOCKS=N` caps the shared pool at N clocks (N = 1: the single clock thread of before,
/// for A/B benchmarks); the default is the number of online CPUs.
///
/// Runs on: `clockForNewCall` on any thread (calls are placed on the loop thread, one at a time,
/// right before their engine registers, so a burst of calls sees each earlier one counted). A class
/// because it owns the clocks; its list is under a `Mutex`, taken before any clock's own mutex.
final class MediaClockPool: Sendable {
    /// The pool every call uses unless its configuration names another (tests).
    static let shared = MediaClockPool(name: "wcs-media",
                                       maximumClocks: maximumClocks(override: getenv("WCS_MEDIA_CLOCKS").map { String(cString: $0) }))
    /// Share of the period a clock's projected rounds may take before a new call goes elsewhere.
    static let defaultBusyLimit = 0.5
    /// Nanoseconds an extra clock's thread waits without calls before it ends (5 s).
    static let defaultIdleLinger = 5_000_000_000

    /// The first clock's thread name; the others add `-2`, `-3` …
    let name: String
    /// Clocks at most (1 or more).
    let maximumClocks: Int
    /// See `defaultBusyLimit`.
    let busyLimit: Double
    private let idleLinger: Int
    private let periodNanoseconds: Int
    private let measure: @Sendable (MediaClock) -> MediaClockLoad
    private let clocks = Mutex<[MediaClock]>([])

    /// A pool of clocks named `name`, `name-2` …; `measure` reads a clock's load (injectable so tests
    /// can make a clock look busy without loading the machine).
    init(name: String, maximumClocks: Int, busyLimit: Double = defaultBusyLimit, idleLinger: Int = defaultIdleLinger,
         periodNanoseconds: Int = 20_000_000, measure: @escaping @Sendable (MediaClock) -> MediaClockLoad = { $0.load }) {
        self.name = name
        self.maximumClocks = max(1, maximumClocks)
        self.busyLimit = busyLimit
        self.idleLinger = idleLinger
        self.periodNanoseconds = periodNanoseconds
        self.measure = measure
    }

    /// The clock a new call registers on (see the type's comment); starts a new clock when needed.
    func clockForNewCall() -> MediaClock {
        clocks.withLock { clocks in
            let loads = clocks.map(measure)
            switch MediaClockPlacement.choose(loads: loads, maximumClocks: maximumClocks, busyLimit: busyLimit) {
            case .existing(let index):
                return clocks[index]
            case .newClock:
                let number = clocks.count + 1
                let clock = MediaClock(name: number == 1 ? name : "\(name)-\(number)", periodNanoseconds: periodNanoseconds,
                                       idleLinger: number == 1 ? nil : idleLinger)
                if number > 1 {
                    let busy = loads.map { load in
                        "\(load.calls) calls at \(load.perCallNanoseconds.map { String(Int($0 / 1_000)) } ?? "?") µs each, "
                            + "\(Int((load.busyFraction * 100).rounded())) % busy"
                    }
                    Log.info("audio", "media clock \(clock.name) added (the others: \(busy.joined(separator: "; ")))")
                }
                clocks.append(clock)
                return clock
            }
        }
    }

    /// The clocks made so far, in start order (their threads may have ended).
    var allClocks: [MediaClock] { clocks.withLock { $0 } }

    /// Clock threads running now.
    var runningThreads: Int { allClocks.filter(\.hasThread).count }

    /// `WCS_MEDIA_CLOCKS` (a positive integer) when given and valid, else the online CPUs. A value
    /// that is not a positive integer is ignored with a warning.
    static func maximumClocks(override text: String?) -> Int {
        let cpus = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        guard let text else { return cpus }
        guard let count = Int(text), count > 0 else {
            Log.warning("audio", "WCS_MEDIA_CLOCKS=\(text) is not a positive integer; using \(cpus) (online CPUs)")
            return cpus
        }
        return count
    }
}
