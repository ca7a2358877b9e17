/// What carried a DTMF key press to the agent.
public enum DTMFKeySource: String, Sendable, Codable {
    /// RTP telephone-event packets (RFC 4733) in the call's media.
    case rfc4733
    /// SIP INFO at the far end, relayed by the server over the WebSocket.
    case sipInfo = "sip_info"
    /// Tones inside the far end's audio (`DTMFToneDetector`).
    case audio
}

/// One key press reported once, whatever carried it: a gateway may send RFC 4733 and leave the
/// tones in the audio, or a server may relay a SIP INFO for a key RFC 4733 also carried. A key
/// from one source is the same press as the same key from another source within `window`
/// seconds that has not already been paired; keys from one source are never merged (each source
/// reports each of its presses once, so `11` stays two presses).
///
/// A value owned by the call's state in `CallManager`; `accept` is pure (time is an argument).
struct DTMFKeyMerger: Sendable {
    private struct Press {
        let key: Character
        let time: Double
        var sources: Set<DTMFKeySource>
    }

    var window: Double
    private var recent: [Press] = []

    init(window: Double) { self.window = window }

    /// Whether this report is a new press (true) or another source's report of one already
    /// counted (false): the oldest press of the same key within `window` that this source has
    /// not reported yet.
    mutating func accept(_ key: Character, from source: DTMFKeySource, at time: Double) -> Bool {
        recent.removeAll { time - $0.time > window }
        if let index = recent.firstIndex(where: { $0.key == key && !$0.sources.contains(source) }) {
            recent[index].sources.insert(source)
            return false
        }
        recent.append(Press(key: key, time: time, sources: [source]))
        return true
    }
}
