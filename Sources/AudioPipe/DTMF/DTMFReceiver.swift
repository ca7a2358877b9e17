/// A DTMF key press detected from telephone-event packets.
public struct DTMFDigitEvent: Sendable, Equatable {
    /// The event code (0-15 DTMF, 16 flash).
    public let event: UInt8
    /// The key (`0`-`9`, `*`, `#`, `A`-`D`), or `nil` for flash.
    public let digit: Character?
    /// The RTP timestamp identifying the event.
    public let timestamp: UInt32
    /// The power level in -dBm0 from the first packet seen.
    public let volume: UInt8
    /// True when the packet that revealed the event had an older sequence number than one
    /// already seen (the event arrived out of order).
    public let late: Bool
}

/// Turns incoming telephone-event payloads into key presses, exactly once per event.
///
/// An event is identified by its RTP timestamp (and code): the first packet of a new event
/// reports it, whether or not the marker/start packet arrived; updates and the repeated end
/// packets are ignored. A long event that RFC 4733 splits into segments (a new timestamp at
/// old timestamp + 0xFFFF, same code, no end seen) is not reported again.
public struct DTMFReceiver: Sendable {
    private struct Seen {
        let timestamp: UInt32
        let event: UInt8
        var maxDuration: UInt16
        var ended: Bool
    }

    private let memory: Int
    private var recent: [Seen] = []
    private var highestSequence: UInt16?

    /// Creates a receiver that remembers the last `memory` events for de-duplication.
    public init(memory: Int = 16) {
        self.memory = max(memory, 2)
    }

    /// Handles one telephone-event packet; returns the key press if this packet reveals a new
    /// event. Throws for payloads that are not 4 bytes or not DTMF/flash events.
    public mutating func receive(payload: some Collection<UInt8>, timestamp: UInt32, sequenceNumber: UInt16,
                                 marker: Bool = false) throws(DTMFError) -> DTMFDigitEvent? {
        let packet = try TelephoneEvent(decoding: payload)
        let late = highestSequence.map { isOlder(sequenceNumber, than: $0) } ?? false
        if !late { highestSequence = sequenceNumber }
        if let index = recent.firstIndex(where: { $0.timestamp == timestamp && $0.event == packet.event }) {
            recent[index].maxDuration = max(recent[index].maxDuration, packet.duration)
            recent[index].ended = recent[index].ended || packet.end
            return nil
        }
        let continuesLongEvent = !marker && recent.last.map { last in
            !last.ended && last.event == packet.event && last.maxDuration == UInt16.max
                && timestamp == last.timestamp &+ UInt32(UInt16.max)
        } ?? false
        recent.append(Seen(timestamp: timestamp, event: packet.event, maxDuration: packet.duration, ended: packet.end))
        if recent.count > memory { recent.removeFirst(recent.count - memory) }
        if continuesLongEvent { return nil }
        return DTMFDigitEvent(event: packet.event, digit: packet.digit, timestamp: timestamp, volume: packet.volume, late: late)
    }

    /// RTP sequence comparison with wrap-around (RFC 3550 style).
    private func isOlder(_ sequence: UInt16, than reference: UInt16) -> Bool {
        let distance = reference &- sequence
        return distance != 0 && distance < 0x8000
    }
}
