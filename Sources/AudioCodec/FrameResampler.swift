/// A low-latency `Resampler` whose every call returns exactly `input.count × outputRate / inputRate`
/// samples, as the G.711 codecs need (960 samples at 48 kHz ↔ 160 at 8 kHz).
///
/// libsoxr releases output in blocks, in a pattern that repeats every dozen or so frames. A call
/// that finds too few samples queued is topped up with leading silence. To keep such top-ups
/// (which would be clicks mid-stream) out of real audio, `init` first pushes `primingFrames` of
/// silence through: afterwards the queue holds just the reserve the block pattern needs (about
/// 30 ms), so the stream is delayed once and never runs dry. Buffers are reused: no allocation
/// per call in steady state except the result.
final class FrameResampler {
    private let resampler: Resampler
    private var queue: SampleRing
    private var scratch: [Int16] = []
    /// Calls that had to top up the queue with silence (after priming: each one is a click).
    private(set) var topUps = 0

    /// 20 ms frames of silence run through at creation. libsoxr's block pattern at the
    /// `.telephony` settings is quasi-periodic; for 8 k→48 k the last top-up seen in 5 000
    /// frames came at frame 58, and the test suite checks that none follow priming.
    static let primingFrames = 100

    /// Mono, `inputRate` → `outputRate`, `.telephony` quality.
    init(inputRate: Int, outputRate: Int) throws {
        resampler = try Resampler(inputRate: inputRate, outputRate: outputRate, quality: .telephony)
        queue = SampleRing(capacity: max(inputRate, outputRate))
        scratch.reserveCapacity(outputRate / 10)
        let silence = [Int16](repeating: 0, count: inputRate / 50)
        for _ in 0..<Self.primingFrames {
            _ = try silence.withUnsafeBufferPointer { try process($0) }
        }
    }

    /// Resamples `input` and returns exactly the matching number of output samples.
    func process(_ input: UnsafeBufferPointer<Int16>) throws -> [Int16] {
        scratch.removeAll(keepingCapacity: true)
        try resampler.process(input, appendingTo: &scratch)
        scratch.withUnsafeBufferPointer { _ = queue.append($0) }
        let wanted = input.count * resampler.outputRate / resampler.inputRate
        return [Int16](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            let shortfall = max(0, wanted - queue.count)
            if shortfall > 0 { topUps += 1 }
            buffer.initialize(repeating: 0)
            queue.read(into: UnsafeMutableBufferPointer(rebasing: buffer[shortfall...]))
            initialized = wanted
        }
    }
}
