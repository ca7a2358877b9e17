/// One telephone-event RTP packet to send in the current tick.
public struct DTMFPacket: Sendable, Equatable {
    /// The 4-byte RFC 4733 payload.
    public let payload: [UInt8]
    /// The RTP marker bit (set on the first packet of an event only).
    public let marker: Bool
    /// The RTP timestamp of the event (its start), in event-clock units counted from the
    /// sender's first tick, wrapping at 2^32. Every packet of one event has the same value.
    public let timestampOffset: UInt32
    /// The decoded payload, for logs and tests.
    public let event: TelephoneEvent
}

/// Produces RFC 4733 packets for DTMF digits, one call per packet interval (20 ms by default).
///
/// Per digit: a start packet with the marker bit, then an update every tick with a growing
/// duration and the same timestamp, then three packets with the E bit and the final duration
/// (in the tick that reaches the tone length and the two after). The next digit starts no
/// earlier than tone + gap after the previous start, rounded up to a whole tick, and never
/// before the last end packet of the previous digit.
///
/// Call `nextTick()` once per packet interval for as long as the RTP stream runs (it returns
/// no packets when idle); `timestampOffset` counts event-clock samples since the first call.
/// When a tick returns packets, send them instead of audio for that tick.
public struct DTMFSender: Sendable {
    /// Timing and level settings.
    public struct Configuration: Sendable, Equatable {
        /// The telephone-event RTP clock (8000 or the negotiated rate, for example 48000).
        public var clockRate: Int
        /// The packet interval in ms (20).
        public var packetInterval: Int
        /// How long each tone lasts, in ms (100).
        public var toneDuration: Int
        /// The silence between tones, in ms (70).
        public var interDigitGap: Int
        /// The power level in -dBm0 (10).
        public var volume: UInt8

        /// Creates settings; the defaults are 8 kHz, 20 ms packets, 100 ms tones, 70 ms gaps, -10 dBm0.
        public init(clockRate: Int = 8_000, packetInterval: Int = 20, toneDuration: Int = 100,
                    interDigitGap: Int = 70, volume: UInt8 = 10) {
            self.clockRate = clockRate
            self.packetInterval = packetInterval
            self.toneDuration = toneDuration
            self.interDigitGap = interDigitGap
            self.volume = volume
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private let samplesPerTick: Int
    private let toneSamples: Int
    private let toneTicks: Int
    private let spacingTicks: Int

    private var queue: [UInt8] = []
    private var current: (event: UInt8, startTick: Int)?
    private var tick = 0
    private var nextStartTick = 0

    /// Creates a sender; throws `.invalidTiming` or `.volumeOutOfRange` for unusable settings.
    public init(_ configuration: Configuration = Configuration()) throws(DTMFError) {
        let config = configuration
        guard (1_000...192_000).contains(config.clockRate) else { throw .invalidTiming("clock rate \(config.clockRate) Hz") }
        guard (5...200).contains(config.packetInterval), config.clockRate * config.packetInterval % 1000 == 0 else {
            throw .invalidTiming("packet interval \(config.packetInterval) ms")
        }
        guard config.toneDuration > 0, config.interDigitGap >= 0 else { throw .invalidTiming("tone and gap must be positive") }
        guard config.volume <= 63 else { throw .volumeOutOfRange(Int(config.volume)) }
        let toneSamples = config.clockRate * config.toneDuration / 1000
        guard toneSamples > 0, toneSamples <= Int(UInt16.max) else {
            throw .invalidTiming("a \(config.toneDuration) ms tone does not fit the 16-bit duration at \(config.clockRate) Hz")
        }
        self.configuration = config
        samplesPerTick = config.clockRate * config.packetInterval / 1000
        self.toneSamples = toneSamples
        toneTicks = (toneSamples + samplesPerTick - 1) / samplesPerTick
        let gapSamples = config.clockRate * config.interDigitGap / 1000
        spacingTicks = max((toneSamples + gapSamples + samplesPerTick - 1) / samplesPerTick, toneTicks + 2)
    }

    /// Queues digits (0-9, *, #, A-D; lowercase a-d accepted). Nothing is queued if any
    /// character is invalid.
    public mutating func enqueue(_ digits: String) throws(DTMFError) {
        var codes: [UInt8] = []
        for character in digits {
            guard let code = TelephoneEvent.eventCode(for: character) else { throw .invalidDigit(character) }
            codes.append(code)
        }
        queue += codes
    }

    /// Whether nothing is queued, no tone is playing and the last gap has passed.
    public var isIdle: Bool { current == nil && queue.isEmpty && tick >= nextStartTick }

    /// The number of digits not started yet.
    public var pendingDigits: Int { queue.count }

    /// Drops the digits not started yet (a tone in progress finishes normally).
    public mutating func cancelPending() { queue.removeAll() }

    /// Advances one packet interval and returns the packets for it (empty when there are none).
    public mutating func nextTick() -> [DTMFPacket] {
        defer { tick += 1 }
        if current == nil, !queue.isEmpty, tick >= nextStartTick {
            current = (queue.removeFirst(), tick)
        }
        guard let (event, startTick) = current else { return [] }
        let index = tick - startTick
        let duration = min((index + 1) * samplesPerTick, toneSamples)
        let end = index >= toneTicks - 1
        if index >= toneTicks + 1 {
            current = nil
            nextStartTick = startTick + spacingTicks
        }
        // The configuration was validated, so the code, volume and duration are in range.
        guard let payload = try? TelephoneEvent(event: event, end: end, volume: configuration.volume,
                                                duration: UInt16(duration)) else { return [] }
        return [DTMFPacket(payload: payload.encoded, marker: index == 0,
                           timestampOffset: UInt32(truncatingIfNeeded: startTick * samplesPerTick), event: payload)]
    }

    /// The whole packet schedule for `digits`: one element per tick from the first start
    /// packet to the last end packet (empty elements are gap ticks).
    public static func schedule(_ digits: String, configuration: Configuration = Configuration()) throws(DTMFError) -> [[DTMFPacket]] {
        var sender = try DTMFSender(configuration)
        try sender.enqueue(digits)
        var ticks: [[DTMFPacket]] = []
        while !sender.isIdle { ticks.append(sender.nextTick()) }
        while ticks.last?.isEmpty == true { ticks.removeLast() }
        return ticks
    }
}
