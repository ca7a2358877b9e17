import Synchronization

/// SRTP and SRTCP datagrams the loop thread received for a call, waiting for the media clock
/// thread, which owns the call's receive path (`CallMediaReceiver`). They come this way before the
/// call's sockets move to the media clock (its first packets) and on paths that never move (a UDP
/// socket in tests); the clock takes them at the next tick, or at once for the call's first audio
/// packet (`onFirstAudio`: it is then played when it arrives, not up to a tick later).
///
/// Runs on: `put` on the loop thread, `take` on the media clock thread, `onFirstAudio` from the
/// engine; state under one `Mutex`, held for an append or a swap. A class: both threads share it.
final class CallReceiveInbox: Sendable {
    /// One datagram and when it arrived (monotonic seconds).
    typealias Entry = (datagram: [UInt8], arrival: Double)

    /// Datagrams kept at most; more are dropped (counted by the caller) until the clock takes them.
    static let capacity = 64

    private struct Queue {
        var entries: [Entry] = []
        var firstAudioSeen = false
        var firstAudioHook: (@Sendable () -> Void)?
    }

    /// The payload type of the call's audio (its first packet wakes the clock).
    private let audioPayloadType: UInt8
    private let queue = Mutex(Queue())

    init(audioPayloadType: UInt8) {
        self.audioPayloadType = audioPayloadType
    }

    /// Queues `datagram`; returns false when the inbox is full (the datagram is dropped). Runs
    /// the `onFirstAudio` hook after queueing the call's first RTP packet of the audio payload type
    /// (read from the clear RTP header).
    func put(_ datagram: [UInt8], arrival: Double) -> Bool {
        let isAudio = datagram.count > 1 && datagram[0] & 0xC0 == 0x80 && datagram[1] & 0x7F == audioPayloadType
        let (accepted, hook): (Bool, (@Sendable () -> Void)?) = queue.withLock { queue in
            guard queue.entries.count < Self.capacity else { return (false, nil) }
            queue.entries.append((datagram, arrival))
            guard isAudio, !queue.firstAudioSeen else { return (true, nil) }
            queue.firstAudioSeen = true
            defer { queue.firstAudioHook = nil }
            return (true, queue.firstAudioHook)
        }
        hook?()
        return accepted
    }

    /// Everything queued, oldest first (empty without allocating when nothing is).
    func take() -> [Entry] {
        queue.withLock { queue in
            guard !queue.entries.isEmpty else { return [] }
            defer { queue.entries = [] }
            return queue.entries
        }
    }

    /// Sets what runs once, right after the first audio packet is queued (not for one queued
    /// before it was set).
    func onFirstAudio(_ hook: @escaping @Sendable () -> Void) {
        queue.withLock { queue in
            if !queue.firstAudioSeen { queue.firstAudioHook = hook }
        }
    }
}
