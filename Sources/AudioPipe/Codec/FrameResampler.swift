/// A low-latency `Resampler` whose every call returns exactly `input.count × outputRate / inputRate`
/// samples, as the G.711 codecs need (960 samples at 48 kHz ↔ 160 at 8 kHz).
///
/// libsoxr releases output in blocks; the shortfall of the first calls is filled with leading
/// silence, which delays the stream once by at most about one block, after which the queue
/// never runs dry. Buffers are reused: no allocation per call in steady state except the result.
final class FrameResampler {
    private let resampler: Resampler
    private var queue: SampleRing
    private var scratch: [Int16] = []

    /// Mono, `inputRate` → `outputRate`, `.telephony` quality.
    init(inputRate: Int, outputRate: Int) throws {
        resampler = try Resampler(inputRate: inputRate, outputRate: outputRate, quality: .telephony)
        queue = SampleRing(capacity: max(inputRate, outputRate))
        scratch.reserveCapacity(outputRate / 10)
    }

    /// Resamples `input` and returns exactly the matching number of output samples.
    func process(_ input: UnsafeBufferPointer<Int16>) throws -> [Int16] {
        scratch.removeAll(keepingCapacity: true)
        try resampler.process(input, appendingTo: &scratch)
        scratch.withUnsafeBufferPointer { _ = queue.append($0) }
        let wanted = input.count * resampler.outputRate / resampler.inputRate
        return [Int16](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            let shortfall = max(0, wanted - queue.count)
            buffer.initialize(repeating: 0)
            queue.read(into: UnsafeMutableBufferPointer(rebasing: buffer[shortfall...]))
            initialized = wanted
        }
    }
}
