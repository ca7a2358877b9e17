import AudioPipe
import FoundationEssentials

/// A call's door-station state, kept in its `CallEntry`: the key merger, the code being typed,
/// wrong entries, the prompt stage that plays tones into the call, the time limit, and the
/// actions taken (for the call record).
struct CallDoorState {
    var merger: DTMFKeyMerger
    var entry = DTMFCodeEntry()
    var wrongEntries = 0
    /// `max_wrong` reached: the rest of the call's keys are ignored.
    var keysIgnored = false
    /// Established once (the limit and the announcement on answer are armed once).
    var established = false
    /// When the call must end (monotonic seconds), with `[limits] max_call_time`.
    var deadline: Double?
    var limitTask: Task<Void, Never>?
    var hangupTask: Task<Void, Never>?
    var actions: [CallActionRecord] = []

    init(mergeWindow: Double) {
        merger = DTMFKeyMerger(window: mergeWindow)
    }

    /// Stops the timers (the call ended).
    func cancelTimers() {
        limitTask?.cancel()
        hangupTask?.cancel()
    }
}

/// One door-station action on a call, as the call record keeps it: what fired (the action's
/// name, never its code), how it ended, what carried the keys and how many there were.
public struct CallActionRecord: Codable, Sendable, Equatable {
    public var time: String
    /// The `[actions.NAME]`; nil for a wrong entry.
    public var action: String?
    /// `ok`, `failed`, `wrong_code`, `not_allowed`, `locked_out`, `ignored`, `extended`, `time_limit`.
    public var result: String
    /// `rfc4733`, `sip_info`, `audio`; nil for the time limit.
    public var source: String?
    /// Keys in the entry (never the keys).
    public var keys: Int?
    /// A command's exit, a built-in's error.
    public var detail: String?

    public init(time: String, action: String?, result: String, source: String?, keys: Int?, detail: String?) {
        self.time = time
        self.action = action
        self.result = result
        self.source = source
        self.keys = keys
        self.detail = detail
    }
}
