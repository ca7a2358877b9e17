/// Remembers the call ids of recent pushes and calls, so a push for a call already seen does not
/// wake the agent again or ring twice. Memory is bounded: the oldest ids are forgotten first.
public struct PushDeduplicator: Sendable {
    /// How many ids are kept.
    public let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []

    /// A deduplicator that keeps at most `capacity` ids (at least 1).
    public init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// Records `callId`; returns false when it was already known.
    public mutating func insert(_ callId: String) -> Bool {
        guard members.insert(callId).inserted else { return false }
        order.append(callId)
        if order.count > capacity {
            let excess = order.count - capacity
            for old in order.prefix(excess) { members.remove(old) }
            order.removeFirst(excess)
        }
        return true
    }

    /// Whether `callId` is known.
    public func contains(_ callId: String) -> Bool { members.contains(callId) }

    /// Forgets `callId` (a push whose wake failed may be retried).
    public mutating func remove(_ callId: String) {
        guard members.remove(callId) != nil else { return }
        order.removeAll { $0 == callId }
    }

    /// How many ids are known.
    public var count: Int { members.count }
}
