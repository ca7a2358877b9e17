/// What one media clock measured of its own work, as the pool sees it when it places a new call
/// (`MediaClockPlacement`): how many calls it ticks and how long one call's share of a periodic
/// round takes.
///
/// A value, made under the clock's mutex (`MediaClock.load`) and read on any thread.
struct MediaClockLoad: Sendable, Equatable {
    /// Calls registered on the clock now.
    var calls: Int
    /// Smoothed wall time of one call's share of a periodic round (the drain of the clock's receive
    /// context plus every call's tick, divided by the calls ticked), in nanoseconds; nil before the
    /// clock ran its first periodic round with a call.
    var perCallNanoseconds: Double?
    /// Share of the period the rounds took over the last completed window (about a second).
    var busyFraction: Double
    /// The clock's period in nanoseconds.
    var periodNanoseconds: Int
}

/// Measures a media clock's periodic rounds (`MediaClockLoad`'s figures). Wall time on
/// `CLOCK_MONOTONIC`, not the thread's CPU time: what makes a frame late is how long the round
/// takes from its deadline, preemption by other threads included, and the monotonic clock is read
/// through the vDSO (no system call per round).
///
/// The per-call cost follows the rounds closely (an exponential average over about 16 rounds,
/// a third of a second), so a burst of new calls is placed by a figure at most a few rounds old;
/// the busy fraction is the plain share over fixed windows of `windowRounds`, for reports.
///
/// Runs on: `record` on the clock thread, under the clock's mutex; read under it. A struct held by
/// the clock.
struct MediaClockMeter {
    /// Rounds per busy-fraction window (one second at 20 ms).
    static let windowRounds = 50
    /// Weight of the newest round in the per-call average.
    static let smoothing = 1.0 / 16

    /// See `MediaClockLoad.perCallNanoseconds`.
    private(set) var perCallNanoseconds: Double?
    /// See `MediaClockLoad.busyFraction`.
    private(set) var busyFraction = 0.0
    private let periodNanoseconds: Int
    private var windowBusyNanoseconds = 0
    private var windowRoundCount = 0

    init(periodNanoseconds: Int) {
        self.periodNanoseconds = periodNanoseconds
    }

    /// One periodic round that ticked `calls` calls took `roundNanoseconds` (drain included).
    mutating func record(roundNanoseconds: Int, calls: Int) {
        let round = max(0, roundNanoseconds)
        if calls > 0 {
            let sample = Double(round) / Double(calls)
            perCallNanoseconds = perCallNanoseconds.map { $0 + (sample - $0) * Self.smoothing } ?? sample
        }
        windowBusyNanoseconds += round
        windowRoundCount += 1
        if windowRoundCount == Self.windowRounds {
            busyFraction = Double(windowBusyNanoseconds) / Double(windowRoundCount * periodNanoseconds)
            windowBusyNanoseconds = 0
            windowRoundCount = 0
        }
    }

    /// The clock has no call left: the next window starts with its next call.
    mutating func idle() {
        busyFraction = 0
        windowBusyNanoseconds = 0
        windowRoundCount = 0
    }
}
