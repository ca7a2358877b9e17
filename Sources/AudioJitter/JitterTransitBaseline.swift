/// Tracks the fastest transit time (arrival minus media time) seen recently: the reference
/// against which each packet's relative delay and the playout delay are measured.
///
/// The reference drops at once to any faster packet and otherwise creeps upward slowly, to
/// follow sender clock drift and route changes. A transit jump above it by more than the
/// resync threshold means the timeline itself moved (e.g. a sender that froze its timestamp
/// during silence): the reference restarts at the new transit.
struct JitterTransitBaseline: Sendable {
    private(set) var reference: Double?
    private var lastArrival = 0.0
    let creep: Double
    let resyncThreshold: Double

    init(creep: Double, resyncThreshold: Double) {
        self.creep = creep
        self.resyncThreshold = resyncThreshold
    }

    /// Feeds one packet; returns its delay relative to the reference, or nil when the packet
    /// restarted the reference (nothing meaningful to measure).
    mutating func update(transit: Double, arrival: Double) -> Double? {
        guard transit.isFinite, arrival.isFinite else { return nil }
        guard let current = reference else {
            reference = transit
            lastArrival = arrival
            return 0
        }
        let crept = current + creep * max(0, arrival - lastArrival)
        lastArrival = max(lastArrival, arrival)
        if transit - crept > resyncThreshold {
            reference = transit
            return nil
        }
        reference = min(crept, transit)
        return transit - min(crept, transit)
    }

    mutating func reset() { reference = nil }
}
