/// The end results of the last `limit` calls that ended, oldest dropped first; look-ups in
/// constant time. A value kept by its owner (`CallManager`): a late duplicate announcement of one
/// of them is not a new call, and a push's reply says what became of its call.
struct RecentEnds: Sendable {
    let limit: Int
    private var order: [String] = []
    private var results: [String: CallEndResult] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    func contains(_ id: String) -> Bool { results[id] != nil }

    /// How call `id` ended, if it is one of them.
    func result(of id: String) -> CallEndResult? { results[id] }

    mutating func insert(_ id: String, _ result: CallEndResult) {
        if results.updateValue(result, forKey: id) == nil { order.append(id) }
        if order.count > limit { results[order.removeFirst()] = nil }
    }
}
