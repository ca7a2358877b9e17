import AudioPipe
import AudioJitter
import AudioRTP
import AudioSDP

/// A call's receive path replayed on a virtual clock: the production `CallReceiveState` (jitter
/// buffer, arrival estimate, RTP statistics) and `CallPlayout` (Opus decode, in-band FEC,
/// concealment with its fade) fed with packets at given arrival times, played at 20 ms ticks that
/// are numbers, not the machine's clock. The same packets give the same samples, whatever the
/// machine's load, so speech quality (PESQ-WB) can be compared between two builds or two settings
/// without the noise of a live call (`wcs-quality-replay`, `scripts/bench_replay.py`).
///
/// What is modelled, as `CallAudioEngine` and `MediaClock` do it:
/// - The call's first audio packet comes through the loop (its exact arrival) and is played at
///   once; the next periodic tick then plays nothing.
/// - `.atTicks` (the media clock receive, the default path): after that, each tick drains what
///   came in since the drain before, stamped with the read time and the previous drain's start
///   (the jitter buffer's `arrivalEstimate`), then plays one slot.
/// - `.atArrival` (the loop receive, `CallMediaConfiguration.receivesOnLoopOnly`): every packet is recorded
///   at its exact arrival; slots are still played at the ticks.
/// - `.atTicksReadTime`: read at the ticks, accounted at the read time (no arrival estimate).
/// SRTP and the sockets are left out: they deliver the bytes unchanged or not at all.
///
/// Still a restatement: the first-packet playout and the skipped tick after it are
/// `CallAudioEngine.tick`/`firstPacketPlayout`'s, kept here by hand (only `CallReceiveState` and
/// `CallPlayout` are shared). Left for a later step: move that schedule into a value both use.
///
/// Runs on: the caller's thread, synchronously; nothing is shared.
public enum CallReceiveReplay {
    /// One received RTP packet (audio payload only) and when it arrived (seconds, any origin).
    public struct Packet: Sendable, Equatable {
        public var sequenceNumber: UInt16
        public var timestamp: UInt32
        public var arrival: Double
        public var payload: [UInt8]

        /// A packet of the replayed stream.
        public init(sequenceNumber: UInt16, timestamp: UInt32, arrival: Double, payload: [UInt8]) {
            self.sequenceNumber = sequenceNumber
            self.timestamp = timestamp
            self.arrival = arrival
            self.payload = payload
        }
    }

    /// How received packets reach the jitter buffer.
    public enum Reading: String, Sendable, CaseIterable {
        /// Read by the media clock's drain right before each tick (the default receive path).
        case atTicks = "tick"
        /// Recorded at their exact arrival (the loop receive path).
        case atArrival = "exact"
        /// Read at the ticks like `atTicks` but accounted at the read time, without the jitter
        /// buffer's `arrivalEstimate` (the media clock receive before that estimate existed).
        case atTicksReadTime = "tick-read"
    }

    /// The replayed call's output and counters.
    public struct Result: Sendable {
        /// 48 kHz mono samples, one 20 ms frame per tick from the first tick on.
        public var samples: [Int16] = []
        /// Slots decoded from their own packet.
        public var decoded = 0
        /// Slots rebuilt from the next packet's in-band FEC.
        public var recoveredFEC = 0
        /// Slots concealed by the codec (loss, underrun, stretch).
        public var concealed = 0
        /// Silent slots (before the stream, gaps).
        public var silence = 0
        /// The jitter buffer's counters at the end.
        public var jitter: JitterBufferStatistics?
        /// Each played slot: when, how it was filled and the jitter buffer's state after it
        /// (kept only when `run` is asked to).
        public var slots: [(now: Double, slot: String, jitter: JitterBufferStatistics?)] = []
    }

    /// The payload type the replay uses for Opus (any dynamic type would do).
    static let payloadType: UInt8 = 111
    /// When, after its tick, the drain starts and reads (the clock's own work before it).
    static let drainStartOffset = 0.000_02
    static let readOffset = 0.000_05

    /// Replays `packets` (any order; they are received in arrival order) through the receive path
    /// of an Opus call configured by `configuration`, with ticks at `firstTick + n × 20 ms`, until
    /// `tail` seconds after the last arrival. Throws when the codec or jitter buffer cannot be made.
    public static func run(_ packets: [Packet], reading: Reading, firstTick: Double, tail: Double = 0.5,
                           configuration: CallMediaConfiguration = CallMediaConfiguration(),
                           keepSlots: Bool = false) throws(CallMediaError) -> Result {
        let codec = AudioCodec.opus(payloadType: payloadType, parameters: OpusParameters(parameters: ["useinbandfec": "1"]))
        let codecs = try CallCodecSet(codec: codec, configuration: configuration)
        let receive = try CallReceiveState(codecs: codecs, jitter: configuration.jitter)
        var playout = CallPlayout(codecs: codecs, receive: receive)
        var result = Result()
        let ordered = packets.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }.map(\.element)
        guard let last = ordered.last else { return result }
        let period = Double(AudioFormat.samplesPerFrame) / Double(AudioFormat.sampleRate)

        func record(_ packet: Packet, arrival: Double, earliest: Double?) {
            let header = RTPHeader(payloadType: payloadType, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                   ssrc: 0x5EED)
            _ = receive.record(header, payloadBytes: packet.payload.count, audioPayload: packet.payload[...], arrival: arrival,
                               earliestArrival: earliest)
        }
        func play(now: Double) {
            let (slot, _) = playout.next(now: now) { result.samples.append(contentsOf: $0) }
            switch slot {
            case .decoded: result.decoded += 1
            case .recoveredFEC: result.recoveredFEC += 1
            case .concealed: result.concealed += 1
            case .silence: result.silence += 1
            }
            if keepSlots { result.slots.append((now, "\(slot)", receive.snapshot.jitter)) }
        }

        var next = 0
        var skipNextPlayout = false
        var tick = firstTick
        while tick <= last.arrival + tail {
            let drainStart = tick + drainStartOffset
            while next < ordered.count, ordered[next].arrival <= drainStart {
                let packet = ordered[next]
                if next == 0 {
                    // The first audio packet: recorded by the loop, played at once (requestPlayout).
                    record(packet, arrival: packet.arrival, earliest: nil)
                    play(now: packet.arrival + readOffset)
                    skipNextPlayout = true
                } else {
                    switch reading {
                    case .atTicks: record(packet, arrival: tick + readOffset, earliest: tick - period + drainStartOffset)
                    case .atArrival: record(packet, arrival: packet.arrival, earliest: nil)
                    case .atTicksReadTime: record(packet, arrival: tick + readOffset, earliest: nil)
                    }
                }
                next += 1
            }
            if skipNextPlayout {
                skipNextPlayout = false
            } else {
                play(now: tick)
            }
            tick += period
        }
        result.jitter = receive.snapshot.jitter
        return result
    }
}
