/// The keys a caller is typing on one call, matched against the codes of `[actions]`.
///
/// Rules (the same for every caller, so the response reveals nothing about the codes):
/// - an entry is the keys since the last one ended; `#` on an empty entry is ignored unless a
///   code starts with `#` (a caller who ends a code that already fired with `#`);
/// - the entry matches when it equals a code: the action fires at that key;
/// - it is wrong when `#` ends it without a match, or when it reaches the longest code's length
///   without a match (never earlier: a wrong first key is not revealed by an early error tone);
/// - it is dropped silently (not counted) after `timeout` seconds without a key.
///
/// A value in the call's state; `press` is pure (time is an argument).
struct DTMFCodeEntry: Sendable {
    enum Outcome: Sendable, Equatable {
        /// More keys may follow.
        case pending
        /// The entry equals the code of `actions[index]`; `keys` is the entry's length.
        case matched(index: Int, keys: Int)
        /// The entry ended without a match (`keys` long).
        case wrong(keys: Int)
    }

    private var keys: [Character] = []
    private var lastKeyAt: Double?

    /// Adds `key` pressed at `time` and says what the entry is now.
    mutating func press(_ key: Character, at time: Double, codes: [String], timeout: Double) -> Outcome {
        if let last = lastKeyAt, time - last > timeout { keys.removeAll() }
        lastKeyAt = time
        if key == "#", keys.isEmpty, !codes.contains(where: { $0.hasPrefix("#") }) { return .pending }
        keys.append(key)
        let entry = String(keys)
        if let index = codes.firstIndex(of: entry) {
            keys.removeAll()
            return .matched(index: index, keys: entry.count)
        }
        let longest = codes.map(\.count).max() ?? 0
        if key == "#" || keys.count >= longest {
            let count = keys.count
            keys.removeAll()
            return .wrong(keys: count)
        }
        return .pending
    }

    /// Forgets the keys typed so far.
    mutating func clear() {
        keys.removeAll()
        lastKeyAt = nil
    }
}

/// Wrong entries per caller, and the callers locked out for entering too many: `limit` wrong
/// entries within `window` seconds lock the caller out for `lockout` seconds (every key of theirs
/// is ignored meanwhile, on every call). Kept in memory: a restart forgets it.
struct DTMFLockouts: Sendable {
    private var wrong: [String: [Double]] = [:]
    private var lockedUntil: [String: Double] = [:]

    /// Whether `caller` is locked out at `time`.
    func isLocked(_ caller: String, at time: Double) -> Bool {
        (lockedUntil[caller] ?? -.infinity) > time
    }

    /// Records a wrong entry; returns true when this one locks the caller out.
    mutating func recordWrong(_ caller: String, at time: Double, limit: Int, window: Double, lockout: Double) -> Bool {
        var times = (wrong[caller] ?? []).filter { time - $0 < window }
        times.append(time)
        if times.count >= limit, lockout > 0 {
            wrong[caller] = []
            lockedUntil[caller] = time + lockout
            return true
        }
        wrong[caller] = times
        if wrong.count > 10_000 { wrong = wrong.filter { !$0.value.isEmpty && time - ($0.value.last ?? 0) < window } }
        return false
    }
}
