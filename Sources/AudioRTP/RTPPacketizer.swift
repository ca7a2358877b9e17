/// Builds the RTP packets of one outgoing stream (one SSRC).
///
/// - The SSRC, first sequence number and first timestamp are random unless given (RFC 3550
///   section 5.1 asks for random initial values).
/// - Each media packet takes the current timestamp, which then advances by the frame's
///   sample count at the codec clock (960 for a 20 ms Opus frame: Opus always uses a 48 kHz
///   RTP clock; 160 for 20 ms of PCMU/PCMA at 8 kHz).
/// - The marker bit is set on the first packet and on the first packet after `skip(samples:)`
///   (a DTX or silence gap, RFC 3551 section 4.1 / RFC 7587), or when the caller asks for it.
/// - Sequence numbers and timestamps wrap modulo 2^16 and 2^32.
/// - Telephone events (RFC 4733) go through `eventPacket`, which shares the sequence space
///   but uses an explicit timestamp (the event's start) and its own payload type.
///
/// A DTMF sender that replaces audio frames with events should call `skip(samples:)` for the
/// frames it suppresses, so the audio timestamp keeps pace with real time.
public struct RTPPacketizer: Sendable {
    /// The stream's synchronization source.
    public let ssrc: UInt32
    /// The media payload type (0-127).
    public let payloadType: UInt8
    /// The RTP clock rate in Hz (48000 for Opus, 8000 for PCMU/PCMA).
    public let clockRate: Int
    /// The sequence number the next packet will carry.
    public private(set) var sequenceNumber: UInt16
    /// The timestamp the next media packet will carry.
    public private(set) var timestamp: UInt32
    /// An extension block written into every packet (for example RFC 6464 audio level or
    /// the BUNDLE mid), or nil.
    public var headerExtension: RTPHeaderExtension?
    /// Extra capacity reserved in every array `packet` returns, so an SRTP layer can append
    /// its authentication tag in place without reallocating.
    public var reservedTrailerCapacity: Int
    /// Whether the next media packet gets the marker bit on its own.
    public private(set) var markerPending = true

    /// A packetizer. Throws for a payload type above 127 or a non-positive clock rate.
    public init(
        payloadType: UInt8, clockRate: Int, ssrc: UInt32? = nil, initialSequenceNumber: UInt16? = nil,
        initialTimestamp: UInt32? = nil, reservedTrailerCapacity: Int = 0
    ) throws(RTPError) {
        guard payloadType <= 127 else { throw .invalidField("payload type \(payloadType) exceeds 127") }
        guard clockRate > 0 else { throw .invalidField("clock rate \(clockRate) must be positive") }
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.ssrc = ssrc ?? UInt32.random(in: .min ... .max)
        self.sequenceNumber = initialSequenceNumber ?? UInt16.random(in: .min ... .max)
        self.timestamp = initialTimestamp ?? UInt32.random(in: .min ... .max)
        self.reservedTrailerCapacity = max(0, reservedTrailerCapacity)
    }

    /// Builds the next media packet: `payload` stamped with the current timestamp, which then
    /// advances by `samples`. The marker is set when `marker` is true or a talkspurt starts.
    public mutating func packet(payload: UnsafeRawBufferPointer, samples: UInt32, marker: Bool = false) -> [UInt8] {
        var buffer: [UInt8] = []
        writePacket(payload: payload, samples: samples, marker: marker, into: &buffer)
        return buffer
    }

    /// Builds the next media packet; see `packet(payload: UnsafeRawBufferPointer, ...)`.
    public mutating func packet(payload: [UInt8], samples: UInt32, marker: Bool = false) -> [UInt8] {
        payload.withUnsafeBytes { packet(payload: $0, samples: samples, marker: marker) }
    }

    /// Like `packet`, but replaces the contents of `buffer` (keeping its capacity), so a
    /// sender can reuse one buffer for every frame.
    public mutating func writePacket(
        payload: UnsafeRawBufferPointer, samples: UInt32, marker: Bool = false, into buffer: inout [UInt8]
    ) {
        let setMarker = marker || markerPending
        write(payload: payload, payloadType: payloadType, timestamp: timestamp, marker: setMarker, into: &buffer)
        markerPending = false
        timestamp &+= samples
    }

    /// Advances the timestamp over `samples` that are not sent (DTX or suppressed silence);
    /// the next media packet starts a talkspurt and carries the marker bit.
    public mutating func skip(samples: UInt32) {
        timestamp &+= samples
        markerPending = true
    }

    /// Builds a packet with an explicit timestamp and payload type, for RFC 4733 telephone
    /// events: every packet of one event carries the event's start timestamp, and the first
    /// one the marker. Consumes a sequence number; leaves the media timestamp untouched.
    /// Throws for a payload type above 127.
    public mutating func eventPacket(
        payload: [UInt8], payloadType eventPayloadType: UInt8, timestamp eventTimestamp: UInt32, marker: Bool
    ) throws(RTPError) -> [UInt8] {
        guard eventPayloadType <= 127 else { throw .invalidField("payload type \(eventPayloadType) exceeds 127") }
        var buffer: [UInt8] = []
        payload.withUnsafeBytes { raw in
            write(payload: raw, payloadType: eventPayloadType, timestamp: eventTimestamp, marker: marker, into: &buffer)
        }
        return buffer
    }

    private mutating func write(
        payload: UnsafeRawBufferPointer, payloadType: UInt8, timestamp: UInt32, marker: Bool, into buffer: inout [UInt8]
    ) {
        let header = RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
            ssrc: ssrc, headerExtension: headerExtension)
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(header.serializedSize + payload.count + reservedTrailerCapacity)
        header.write(into: &buffer, padding: false)
        buffer.append(contentsOf: payload)
        sequenceNumber &+= 1
    }
}
