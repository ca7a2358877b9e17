import Glibc
import Synchronization

/// Plays prompts into a call: confirmation tones, warnings and announcement files, into the
/// near end's frames (what the far end hears), mixed with the source or replacing it, one prompt
/// after another. A `CallAudioStage`: runs on the media clock thread, does not block, does not
/// allocate per frame (a prompt's samples are made before `play` is called).
public final class CallPromptStage: CallAudioStage {
    /// How a prompt meets the call's own source.
    public enum Mode: String, Sendable {
        /// Added to the source (clipped).
        case mix
        /// Instead of the source while it plays.
        case replace
    }

    private struct Prompt {
        let samples: [Int16]
        let mode: Mode
        let done: (@Sendable () -> Void)?
    }

    private struct State {
        var queue: [Prompt] = []
        var position = 0
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues `samples` (48 kHz mono) to play after what is already queued; `done` runs (on the
    /// media clock thread; it must not block) when the last sample has been sent, or at `close`
    /// if it never was.
    public func play(_ samples: [Int16], mode: Mode, done: (@Sendable () -> Void)? = nil) {
        let refused = state.withLock { state -> Bool in
            guard !state.closed else { return true }
            state.queue.append(Prompt(samples: samples, mode: mode, done: done))
            return false
        }
        if refused { done?() }
    }

    /// Drops every queued prompt and the one playing (their `done` run).
    public func stop() {
        let dropped = state.withLock { state -> [Prompt] in
            defer {
                state.queue.removeAll()
                state.position = 0
            }
            return state.queue
        }
        for prompt in dropped { prompt.done?() }
    }

    /// Whether a prompt is playing or queued.
    public var isPlaying: Bool { state.withLock { !$0.queue.isEmpty } }

    public func nearEndCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) {
        var finished: [@Sendable () -> Void] = []
        state.withLock { state in
            var offset = 0
            while offset < samples.count, let prompt = state.queue.first {
                let take = min(samples.count - offset, prompt.samples.count - state.position)
                prompt.samples.withUnsafeBufferPointer { source in
                    for index in 0..<take {
                        let value = source[state.position + index]
                        switch prompt.mode {
                        case .replace: samples[offset + index] = value
                        case .mix:
                            let sum = Int32(samples[offset + index]) + Int32(value)
                            samples[offset + index] = Int16(clamping: sum)
                        }
                    }
                }
                offset += take
                state.position += take
                if state.position >= prompt.samples.count {
                    if let done = prompt.done { finished.append(done) }
                    state.queue.removeFirst()
                    state.position = 0
                    // A replacing prompt leaves the rest of the frame as the source gave it.
                }
            }
        }
        for done in finished { done() }
    }

    public func close() {
        let dropped = state.withLock { state -> [Prompt] in
            state.closed = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        for prompt in dropped { prompt.done?() }
    }
}

/// The tones a door station plays into a call (48 kHz mono), each a few beeps.
public enum PromptTone: String, Sendable, CaseIterable {
    /// Two short high beeps: the code was right, the action runs.
    case ok
    /// Three low beeps: wrong code, or not allowed, or locked out.
    case error
    /// Three beeps: the call ends soon (maximum call time).
    case warning

    /// The tone's samples at about -12 dBFS.
    public var samples: [Int16] {
        switch self {
        case .ok: Self.beeps(frequency: 1_400, count: 2, onMs: 90, offMs: 60)
        case .error: Self.beeps(frequency: 420, count: 3, onMs: 150, offMs: 80)
        case .warning: Self.beeps(frequency: 880, count: 3, onMs: 200, offMs: 150)
        }
    }

    static func beeps(frequency: Double, count: Int, onMs: Int, offMs: Int) -> [Int16] {
        var out: [Int16] = []
        let on = onMs * 48, off = offMs * 48, ramp = 240
        for _ in 0..<count {
            for index in 0..<on {
                let envelope = min(1, Double(min(index, on - index)) / Double(ramp))
                out.append(Int16(8_000 * envelope * sin(2 * Double.pi * frequency * Double(index) / 48_000)))
            }
            out += [Int16](repeating: 0, count: off)
        }
        return out
    }
}
