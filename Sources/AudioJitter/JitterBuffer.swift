import AudioRTP
import SystemSupport

/// An adaptive jitter buffer for one incoming audio stream of fixed-length frames (20 ms).
///
/// Feed every received packet to `insert` and call `pop` once per frame period (every
/// 20 ms, driven by the audio clock). Time is injected as monotonic seconds, so behaviour is
/// deterministic under test.
///
/// How it works:
/// - Each packet's transit (arrival minus media time) is compared with the fastest recent
///   transit; that relative delay goes into a forgetting histogram. The target delay is one
///   frame (two when `nextPacketRepairsLoss`: the next packet must be in hand for FEC) plus
///   the `delayQuantile` of the histogram, clamped to `minimumDelay...maximumDelay` (20-200 ms
///   by default).
/// - The playout point advances one frame per `pop`. The current delay is the time between
///   a frame's earliest possible arrival and its playout. Below target minus one frame the
///   buffer stretches (one concealment slot without advancing; also when the slot's packet is
///   missing and nothing later is in hand); at or above the highest target of the last 3 s
///   plus half a frame it drops a frame, at most every `skipSpacing` slots during speech
///   (always in a gap, or on a loss that FEC cannot repair, where it costs nothing). Every
///   20 ms jump of the delay costs speech quality, so the window is a frame and a half wide
///   and a short dip of the target does not shrink the delay.
/// - A missing sequence number whose slot has come is `.lost`, carrying the next packet's
///   payload when that packet is buffered (Opus in-band FEC).
/// - A packet whose timestamp lies ahead of the playout point with contiguous sequence
///   numbers is a DTX gap: `.silence`, no loss. An empty buffer is concealed for
///   `concealmentLimit` slots and then taken as a gap; when packets resume, playout is
///   re-anchored at the current target delay (a new talkspurt adapts the delay for free).
/// - Packets behind the playout point are late (dropped, counted) or duplicates; a new SSRC
///   or a confirmed sequence jump of 3000+ resets the stream; sequence numbers and
///   timestamps are unwrapped, so wraparound is seamless; a packet that does not fit in
///   `capacity` drops the oldest.
public struct JitterBuffer: Sendable {
    enum Mode: Sendable {
        /// No stream yet (or just reset).
        case empty
        /// Packets buffered, playout not started.
        case waiting
        /// In a talkspurt.
        case playing
        /// In a gap after an underrun; the next packet re-anchors playout.
        case silent
    }

    static let maximumDropout: Int64 = 3000
    static let maximumMisorder: Int64 = 100
    static let epsilon = 1e-6

    /// The configuration in use.
    public let configuration: JitterBufferConfiguration

    var ring = JitterSlotRing()
    var estimator: JitterDelayEstimator
    var baseline: JitterTransitBaseline
    var sequenceUnwrapper = RTPSequenceUnwrapper()
    var timestampUnwrapper = RTPTimestampUnwrapper()
    var counters = JitterBufferStatistics(targetDelayMs: 0, bufferedMs: 0, bufferedPackets: 0)
    var mode = Mode.empty
    var ssrc: UInt32?
    /// Media time origin (extended timestamp of the stream's first packet).
    var timestampOrigin: Int64 = 0
    /// Next sequence number to play (extended).
    var nextSequence: Int64 = 0
    /// Highest sequence number buffered so far (extended).
    var highestSequence: Int64 = -1
    /// Timestamp of the slot the next `pop` fills (extended).
    var playout: Int64 = 0
    var bufferedCount = 0
    var emptyStreak = 0
    var slotsSinceSkip = 0
    /// The playout delay of the latest talkspurt slot (seconds), nil outside talkspurts.
    var slotDelay: Double?
    /// A far sequence jump waiting for confirmation by its successor (RFC 3550 A.1 style).
    var pendingJump: Int64?
    /// The first frame of the stream is being played at once (`startsAtOnce`).
    var startingAtOnce = false
    /// The highest target delay seen lately and when it was last reached (`heldTarget`).
    var peakTarget = 0.0
    var peakTargetTime = -Double.infinity

    let frame: Int64
    let frameDuration: Double

    /// A buffer with the given configuration; throws when it is out of range.
    public init(configuration: JitterBufferConfiguration = .opus) throws(JitterBufferError) {
        try configuration.validate()
        self.configuration = configuration
        estimator = JitterDelayEstimator(maximumDelay: configuration.maximumDelay, forgetFactor: configuration.forgetFactor)
        baseline = JitterTransitBaseline(creep: configuration.baselineCreep, resyncThreshold: configuration.resyncThreshold)
        frame = Int64(configuration.frameSamples)
        frameDuration = configuration.frameDuration
    }

    /// Whether a lost frame can be rebuilt from the packet after it (Opus in-band FEC in the
    /// stream). The target then covers one more frame, so that packet is in hand when the loss
    /// comes due; without it the buffer keeps only the slot's own packet in hand. The receive
    /// path sets it once the stream carries FEC.
    public var nextPacketRepairsLoss = false

    /// The delay the buffer currently aims for, in seconds: one frame, plus one more with
    /// `nextPacketRepairsLoss`, plus the `delayQuantile` of the relative delays, within the
    /// configured bounds. Playout keeps the delay between one frame below it and half a frame above.
    public var targetDelay: Double {
        let lookahead = nextPacketRepairsLoss ? frameDuration : 0
        let measured = frameDuration + lookahead + estimator.delay(atQuantile: configuration.delayQuantile)
        return min(max(measured, configuration.minimumDelay), configuration.maximumDelay)
    }

    /// Counters and current state; see `JitterBufferStatistics`.
    public var statistics: JitterBufferStatistics {
        var result = counters
        result.targetDelayMs = targetDelay * 1000
        result.bufferedPackets = bufferedCount
        result.bufferedMs = bufferedDuration * 1000
        result.currentDelayMs = slotDelay.map { $0 * 1000 }
        return result
    }

    // MARK: Insert

    /// Offers a received packet. `arrival` is its monotonic arrival time in seconds; `ssrc`,
    /// when given, resets the buffer whenever it changes.
    @discardableResult
    public mutating func insert(
        seq: UInt16, timestamp: UInt32, payload: [UInt8], arrival: Double, ssrc: UInt32? = nil
    ) -> JitterInsertResult {
        payload.withUnsafeBytes { insert(seq: seq, timestamp: timestamp, payloadBytes: $0, arrival: arrival, ssrc: ssrc) }
    }

    /// `insert` with the payload given as bytes, which are copied into the buffer's reused
    /// storage (no allocation per packet once the buffer has warmed up).
    @discardableResult
    public mutating func insert(
        seq: UInt16, timestamp: UInt32, payloadBytes payload: UnsafeRawBufferPointer, arrival: Double, ssrc: UInt32? = nil
    ) -> JitterInsertResult {
        counters.received += 1
        if let ssrc, let current = self.ssrc, ssrc != current { restart(reason: "SSRC changed to \(ssrc)") }
        if let ssrc { self.ssrc = ssrc }
        if mode == .empty { begin(seq: seq, timestamp: timestamp) }

        let sequence = sequenceUnwrapper.peek(seq)
        if sequence < nextSequence - Self.maximumMisorder || sequence > highestSequence + Self.maximumDropout {
            // Far outside the window: a restarted sender if the next packet follows this one.
            guard pendingJump == sequence else {
                pendingJump = sequence + 1
                counters.late += 1
                return .late
            }
            restart(reason: "sequence restarted at \(seq)")
            begin(seq: seq, timestamp: timestamp)
        }
        pendingJump = nil
        let state = ring.state(of: sequence)
        if state == .buffered || (state == .consumed && sequence < nextSequence) {
            counters.duplicates += 1
            return .duplicate
        }
        let extended = sequenceUnwrapper.unwrap(seq)
        let mediaTimestamp = timestampUnwrapper.unwrap(timestamp)
        // Late packets count too: their delay is exactly what the target must cover.
        if let relativeDelay = baseline.update(transit: arrival - mediaTime(mediaTimestamp), arrival: arrival) {
            estimator.record(relativeDelay)
        }
        if extended < nextSequence {
            guard mode == .waiting, highestSequence - extended < Int64(configuration.capacity), state == .empty else {
                counters.late += 1
                return .late
            }
            nextSequence = extended  // reordered ahead of the first packet, before playout
        }
        if extended >= nextSequence + Int64(configuration.capacity) {
            dropOldest(keepingFrom: extended - Int64(configuration.capacity) + 1)
        }
        ring.store(sequence: extended, timestamp: mediaTimestamp, payload: payload)
        bufferedCount += 1
        highestSequence = max(highestSequence, extended)
        return .buffered
    }

    /// The arrival to account for a packet known only to have arrived after `earliest` and by
    /// `latest` (read in a periodic drain, e.g. once per 20 ms tick): the moment it would have
    /// arrived on time (the fastest recent transit plus its media time) when that lies in the
    /// window, else the nearer end of the window. Stamping such packets with the drain time
    /// instead would quantise every transit to the tick, and a sender whose phase sits near a
    /// tick edge would then look 20 ms late now and then: a dropped frame, then a stretch. With a
    /// precise arrival (`earliest >= latest`) or before the stream has a reference, `latest`.
    public func arrivalEstimate(timestamp: UInt32, earliest: Double, latest: Double) -> Double {
        guard earliest < latest, mode != .empty, let reference = baseline.reference else { return latest }
        let onTime = reference + mediaTime(timestampUnwrapper.peek(timestamp))
        guard onTime.isFinite else { return latest }
        return min(max(onTime, earliest), latest)
    }

    /// Discards everything buffered and forgets the stream (the counters are kept).
    public mutating func reset() {
        restart(reason: "reset requested")
        ssrc = nil
    }

    // MARK: Internals

    /// Seconds of media time from the stream origin to `timestamp`.
    func mediaTime(_ timestamp: Int64) -> Double {
        Double(timestamp - timestampOrigin) / Double(configuration.clockRate)
    }

    private mutating func begin(seq: UInt16, timestamp: UInt32) {
        sequenceUnwrapper.reset()
        timestampUnwrapper.reset()
        let sequence = sequenceUnwrapper.unwrap(seq)
        timestampOrigin = timestampUnwrapper.unwrap(timestamp)
        nextSequence = sequence
        highestSequence = sequence - 1
        playout = timestampOrigin
        mode = .waiting
        emptyStreak = 0
        slotsSinceSkip = 0
    }

    private mutating func restart(reason: @autoclosure () -> String) {
        guard mode != .empty else { return }
        Log.info("jitter", "stream reset (\(reason())), flushing \(bufferedCount) packets")
        counters.flushed += bufferedCount
        counters.resets += 1
        bufferedCount = 0
        ring.removeAll()
        baseline.reset()
        pendingJump = nil
        startingAtOnce = false
        peakTarget = 0
        peakTargetTime = -.infinity
        mode = .empty
    }

    /// Makes room by moving the window start to `newStart`: buffered packets before it are
    /// dropped as overflow, sequence numbers that never arrived count as lost.
    private mutating func dropOldest(keepingFrom newStart: Int64) {
        var dropped = 0
        var sequence = nextSequence
        while sequence < newStart && sequence <= highestSequence {
            if ring.state(of: sequence) == .buffered {
                _ = ring.take(sequence)
                dropped += 1
            } else {
                ring.markMissing(sequence)
            }
            sequence += 1
        }
        counters.overflowDropped += dropped
        bufferedCount -= dropped
        if mode != .waiting { counters.lost += Int(newStart - nextSequence) - dropped }
        nextSequence = newStart
    }

    /// The lowest buffered sequence number at or after `start`.
    func firstBuffered(from start: Int64) -> Int64? {
        guard bufferedCount > 0, start <= highestSequence else { return nil }
        var sequence = start
        while sequence <= highestSequence {
            if ring.state(of: sequence) == .buffered { return sequence }
            sequence += 1
        }
        return nil
    }

    /// Media seconds buffered ahead of the playout point.
    private var bufferedDuration: Double {
        guard bufferedCount > 0, let first = firstBuffered(from: nextSequence),
              let firstTimestamp = ring.timestamp(of: first) else { return 0 }
        var last = highestSequence
        while last > first && ring.state(of: last) != .buffered { last -= 1 }
        let lastTimestamp = ring.timestamp(of: last) ?? firstTimestamp
        let start = mode == .playing ? min(playout, firstTimestamp) : firstTimestamp
        return max(0, Double(lastTimestamp + frame - start) / Double(configuration.clockRate))
    }
}
