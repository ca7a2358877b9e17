/// A pull-based producer of 48 kHz mono 16-bit audio, read one 20 ms frame per tick.
///
/// `read` never blocks on I/O: sources fed by files, pipes or commands do their I/O ahead of
/// time (in memory or on a background thread) and hand out silence when they have nothing.
/// Implementations are thread-safe.
public protocol AudioSource: AnyObject, Sendable {
    /// Writes up to `buffer.count` samples (normally `AudioPipe.samplesPerFrame`) and returns
    /// how many. Live sources always fill the buffer (silence when starved); a finite source
    /// may return fewer on its last frame and returns 0 once it has ended.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int

    /// Stops the source and releases its resources (threads, descriptors, child processes).
    /// Idempotent; later reads return 0.
    func close()
}

/// A push-based consumer of 48 kHz mono 16-bit audio, written one frame at a time.
///
/// `write` does not block on I/O: sinks backed by files, pipes or commands queue samples for a
/// background writer (dropping the oldest, and counting them, when the queue overflows).
/// Implementations are thread-safe.
public protocol AudioSink: AnyObject, Sendable {
    /// Queues samples. Throws `AudioIOError` once the sink has failed or been closed.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws

    /// Flushes what is queued (within the sink's documented limit) and releases resources.
    /// Idempotent.
    func close() throws
}

extension AudioSource {
    /// Reads into an array (see `read(into:)`).
    public func read(into buffer: inout [Int16]) -> Int {
        buffer.withUnsafeMutableBufferPointer { read(into: $0) }
    }
}

extension AudioSink {
    /// Writes samples held in an array (see `write(_:)`).
    public func write(_ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { try write($0) }
    }
}

/// A source or sink on a sound device that knows its own delay: how many 48 kHz frames lie between
/// the device and the call (`ALSASource`, `ALSASink`). The echo canceller aligns its reference by
/// the sum of a call's two (`VoiceProcessingStage`). Any thread.
public protocol AudioDeviceDelay: AnyObject, Sendable {
    /// Frames between the device and the call right now.
    var delayFrames: Int { get }
}
