/// Where a new call goes among a pool's media clocks: the rule, a pure function of the clocks'
/// measured loads, so it is tested without threads or timing.
///
/// A clock has room when its calls plus the new one, at its measured per-call cost, would keep its
/// rounds within `busyLimit` of the period (`projectedBusy`). The new call goes to the first clock,
/// in start order, with room: the calls pack onto the first clocks, so an extra clock only fills
/// when the ones before it are busy, and empties (and its thread ends) when calls end there. With
/// no clock with room a new clock starts, up to `maximumClocks`; past that, the call goes to the
/// clock with the least projected load.
///
/// A clock that has not measured a round yet (just started, or its thread ended) is projected at
/// the highest per-call cost any clock of the pool measured; with no measurement at all, it has
/// room (the first call of the process always lands on the first clock).
///
/// Runs on: any thread (pure).
enum MediaClockPlacement {
    /// What to do with a new call.
    enum Choice: Equatable {
        /// Register it on the clock at this index of the loads given.
        case existing(Int)
        /// Start the next clock and register it there.
        case newClock
    }

    /// The choice for a new call among clocks with `loads` (in start order).
    static func choose(loads: [MediaClockLoad], maximumClocks: Int, busyLimit: Double) -> Choice {
        let fallback = loads.compactMap(\.perCallNanoseconds).max()
        let projected = loads.map { projectedBusy($0, withNewCalls: 1, fallbackPerCall: fallback) }
        if let index = projected.firstIndex(where: { $0 <= busyLimit }) { return .existing(index) }
        if loads.count < max(1, maximumClocks) { return .newClock }
        let least = projected.indices.min { projected[$0] < projected[$1] } ?? 0
        return .existing(least)
    }

    /// The share of the period `load`'s rounds would take with `added` more calls, at its measured
    /// per-call cost, or `fallbackPerCall` when it has none; 0 with neither.
    static func projectedBusy(_ load: MediaClockLoad, withNewCalls added: Int, fallbackPerCall: Double?) -> Double {
        guard let perCall = load.perCallNanoseconds ?? fallbackPerCall, load.periodNanoseconds > 0 else { return 0 }
        return Double(load.calls + added) * perCall / Double(load.periodNanoseconds)
    }
}
