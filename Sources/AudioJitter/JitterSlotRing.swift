/// Fixed storage for the packets around the playout point, indexed by extended sequence
/// number modulo 128: up to 64 buffered packets ahead and the fate of the 64 before.
///
/// Each slot keeps its payload array's storage for the next packet that lands in it (the played
/// copy shares it until the decoder is done), so once every slot has held a packet, storing and
/// playing allocate nothing.
struct JitterSlotRing: Sendable {
    enum State: Sendable { case empty, buffered, consumed, missing }

    struct Slot: Sendable {
        var sequence: Int64 = .min
        var timestamp: Int64 = 0
        var payload: [UInt8] = []
        var state: State = .empty
    }

    static let size = 128
    private var slots = Array(repeating: Slot(), count: size)

    private static func index(_ sequence: Int64) -> Int { Int(sequence & Int64(size - 1)) }

    /// The state recorded for `sequence`, or `.empty` if the slot holds another number.
    func state(of sequence: Int64) -> State {
        let slot = slots[Self.index(sequence)]
        return slot.sequence == sequence ? slot.state : .empty
    }

    /// The timestamp of a buffered packet.
    func timestamp(of sequence: Int64) -> Int64? {
        let slot = slots[Self.index(sequence)]
        return slot.sequence == sequence && slot.state == .buffered ? slot.timestamp : nil
    }

    /// The payload of a buffered packet (shared, not copied).
    func payload(of sequence: Int64) -> [UInt8]? {
        let slot = slots[Self.index(sequence)]
        return slot.sequence == sequence && slot.state == .buffered ? slot.payload : nil
    }

    /// Copies `payload` into the slot, reusing the slot's storage.
    mutating func store(sequence: Int64, timestamp: Int64, payload: UnsafeRawBufferPointer) {
        let index = Self.index(sequence)
        slots[index].sequence = sequence
        slots[index].timestamp = timestamp
        slots[index].state = .buffered
        slots[index].payload.removeAll(keepingCapacity: true)
        slots[index].payload.append(contentsOf: payload)
    }

    /// Marks the packet consumed and returns its payload (sharing the slot's storage).
    mutating func take(_ sequence: Int64) -> [UInt8] {
        let index = Self.index(sequence)
        slots[index].state = .consumed
        return slots[index].payload
    }

    /// Records that `sequence` never arrived before its slot passed.
    mutating func markMissing(_ sequence: Int64) {
        let index = Self.index(sequence)
        slots[index].sequence = sequence
        slots[index].state = .missing
    }

    mutating func removeAll() {
        for index in slots.indices {
            slots[index].sequence = .min
            slots[index].state = .empty
        }
    }
}
