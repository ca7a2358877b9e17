/// The last `limit` ids inserted, oldest dropped first; `contains` in constant time. A value kept by
/// its owner (`CallManager`: the calls that ended lately).
struct RecentIds: Sendable {
    let limit: Int
    private var order: [String] = []
    private var members: Set<String> = []

    init(limit: Int) { self.limit = max(1, limit) }

    func contains(_ id: String) -> Bool { members.contains(id) }

    mutating func insert(_ id: String) {
        guard members.insert(id).inserted else { return }
        order.append(id)
        if order.count > limit { members.remove(order.removeFirst()) }
    }
}
