/// A bounded FIFO of 16-bit samples in one circular buffer. When full, appending drops the
/// oldest samples (and reports how many) so latency stays bounded. Not thread-safe: owners
/// guard it with their own lock.
package struct SampleRing: Sendable {
    private var storage: [Int16]
    private var head = 0
    /// Samples currently held.
    package private(set) var count = 0

    /// Creates an empty ring holding at most `capacity` samples.
    package init(capacity: Int) {
        storage = [Int16](repeating: 0, count: max(1, capacity))
    }

    /// The most samples the ring holds.
    package var capacity: Int { storage.count }
    /// Room left before appending starts to drop samples.
    package var freeSpace: Int { storage.count - count }

    /// Appends samples; returns how many of the oldest had to be dropped to make room.
    @discardableResult
    package mutating func append(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        var source = samples
        var dropped = 0
        if source.count > capacity {                     // only the newest `capacity` samples can survive
            dropped += source.count - capacity
            source = UnsafeBufferPointer(rebasing: source[(source.count - capacity)...])
        }
        let overflow = source.count - freeSpace
        if overflow > 0 {
            head = (head + overflow) % capacity
            count -= overflow
            dropped += overflow
        }
        let capacity = self.capacity
        var tail = (head + count) % capacity
        storage.withUnsafeMutableBufferPointer { buffer in
            var offset = 0
            while offset < source.count {
                let run = min(source.count - offset, capacity - tail)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[tail..<(tail + run)])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: source[offset..<(offset + run)]))
                offset += run
                tail = (tail + run) % capacity
            }
        }
        count += source.count
        return dropped
    }

    /// Moves up to `destination.count` of the oldest samples out; returns how many.
    @discardableResult
    package mutating func read(into destination: UnsafeMutableBufferPointer<Int16>) -> Int {
        let total = min(destination.count, count)
        let capacity = self.capacity
        storage.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < total {
                let run = min(total - offset, capacity - head)
                _ = UnsafeMutableBufferPointer(rebasing: destination[offset..<(offset + run)])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: buffer[head..<(head + run)]))
                offset += run
                head = (head + run) % capacity
            }
        }
        count -= total
        if count == 0 { head = 0 }
        return total
    }

    /// Drops everything.
    package mutating func removeAll() {
        head = 0
        count = 0
    }
}
