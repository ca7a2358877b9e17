import CSoxr

/// A streaming sample-rate and channel converter built on libsoxr (`soxr_create` + `soxr_process`).
///
/// Input is interleaved 16-bit audio at `inputRate` with `inputChannels` channels. Channels are
/// first downmixed to mono by averaging, then resampled, then (for `outputChannels` > 1) the mono
/// signal is copied to every output channel. Equal rates bypass libsoxr entirely; the first
/// resampler that changes the rate loads it (`CodecError.resamplerUnavailable` when it cannot).
///
/// The object keeps filter state between calls, so consecutive chunks of one stream join without
/// clicks; output arrives with the filter's delay and possibly in bursts (see `Quality`).
/// Scratch buffers are reused, so steady-state processing does not allocate.
///
/// Runs on: its owner's thread, one call at a time (a codec's, or a file reader's). Not
/// Sendable and without a lock: the compiler keeps it with its owner.
public final class Resampler {
    /// The libsoxr quality recipe.
    public enum Quality: Sendable, Equatable {
        /// `SOXR_MQ` (16-bit precision, medium roll-off) with 256-point DFT blocks: libsoxr's
        /// block-wise output then stays within about one 20 ms frame, which real-time telephony
        /// (the G.711 paths) needs. Its precision is far above what G.711 can carry.
        case telephony
        /// `SOXR_HQ` (20-bit precision) with default DFT sizes: the default, for files and
        /// anything not latency-critical. For integer ratios such as 48 k→8 k libsoxr then
        /// releases output in blocks of up to ~150 ms.
        case high
        /// `SOXR_VHQ` (28-bit precision): more CPU for no audible gain on 16-bit audio.
        case veryHigh
    }

    /// Input sample rate in Hz.
    public let inputRate: Int
    /// Interleaved channels in the input.
    public let inputChannels: Int
    /// Output sample rate in Hz.
    public let outputRate: Int
    /// Interleaved channels in the output (the mono signal duplicated).
    public let outputChannels: Int
    /// The quality recipe in use.
    public let quality: Quality

    private let soxr: OpaquePointer?
    private var monoIn: [Float] = []
    private var monoOut = [Float](repeating: 0, count: 8_192)

    /// Creates a converter. Rates must be 1…768 000 Hz and channel counts 1…32.
    public init(inputRate: Int, inputChannels: Int = 1, outputRate: Int = AudioFormat.sampleRate,
                outputChannels: Int = 1, quality: Quality = .high) throws {
        for (name, rate) in [("input", inputRate), ("output", outputRate)] where !(1...768_000).contains(rate) {
            throw CodecError.invalidConfiguration("\(name) sample rate \(rate) Hz is outside 1…768000")
        }
        for (name, channels) in [("input", inputChannels), ("output", outputChannels)] where !(1...32).contains(channels) {
            throw CodecError.invalidConfiguration("\(name) channel count \(channels) is outside 1…32")
        }
        self.inputRate = inputRate
        self.inputChannels = inputChannels
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        self.quality = quality
        soxr = inputRate == outputRate ? nil : try Self.makeSoxr(from: inputRate, to: outputRate, quality: quality)
    }

    deinit { if let soxr { soxr_delete(soxr) } }

    /// Converts one chunk and appends whatever output is ready to `output` (reuse `output`'s
    /// capacity across calls to avoid allocations). `input.count` must be a multiple of `inputChannels`.
    public func process(_ input: UnsafeBufferPointer<Int16>, appendingTo output: inout [Int16]) throws {
        guard input.count % inputChannels == 0 else {
            throw CodecError.invalidConfiguration(
                "\(input.count) samples is not a whole number of \(inputChannels)-channel frames")
        }
        let frames = downmix(input)
        guard let soxr else {
            monoIn.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0[0..<frames]), to: &output) }
            return
        }
        try monoIn.withUnsafeBufferPointer { inBuffer in
            try pump(soxr, input: inBuffer.baseAddress, count: frames, into: &output)
        }
    }

    /// Converts one chunk and returns the output that is ready (see `process(_:appendingTo:)`).
    public func process(_ input: UnsafeBufferPointer<Int16>) throws -> [Int16] {
        var output: [Int16] = []
        try process(input, appendingTo: &output)
        return output
    }

    /// Converts one chunk held in an array (see `process(_:appendingTo:)`).
    public func process(_ input: [Int16]) throws -> [Int16] {
        try input.withUnsafeBufferPointer { try process($0) }
    }

    /// Ends the stream: appends the filter's remaining output. Call `reset()` before reuse.
    public func flush(appendingTo output: inout [Int16]) throws {
        guard let soxr else { return }
        try pump(soxr, input: nil, count: 0, into: &output)
    }

    /// Forgets all history, ready for a new stream with the same settings.
    public func reset() throws {
        guard let soxr else { return }
        try Self.check(soxr_clear(soxr))
    }

    private static func makeSoxr(from inputRate: Int, to outputRate: Int, quality: Quality) throws -> OpaquePointer {
        // libsoxr is opened at the first resampler that changes the rate (Sources/CSoxr).
        guard csoxr_library_load() != 0 else {
            throw CodecError.resamplerUnavailable(csoxr_library_error().map { String(cString: $0) } ?? "unknown reason")
        }
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var runtime = soxr_runtime_spec(1)
        let recipe: Int32
        switch quality {
        case .telephony:
            recipe = SOXR_MQ
            runtime.log2_min_dft_size = 8
            runtime.log2_large_dft_size = 8
        case .high: recipe = SOXR_HQ
        case .veryHigh: recipe = SOXR_VHQ
        }
        var spec = soxr_quality_spec(UInt(recipe), 0)
        var error: soxr_error_t?
        let soxr = soxr_create(Double(inputRate), Double(outputRate), 1, &error, &io, &spec, &runtime)
        try check(error)
        guard let soxr else { throw CodecError.resampler("soxr_create returned no resampler") }
        return soxr
    }

    private static func check(_ error: soxr_error_t?) throws {
        if let error { throw CodecError.resampler(String(cString: error)) }
    }

    /// Averages the channels of `input` into `monoIn` (as floats in −1…1); returns the frame count.
    private func downmix(_ input: UnsafeBufferPointer<Int16>) -> Int {
        let frames = input.count / inputChannels
        if monoIn.count < frames { monoIn = [Float](repeating: 0, count: frames) }
        let channels = inputChannels
        let scale = 1 / (Float(channels) * 32_768)
        monoIn.withUnsafeMutableBufferPointer { mono in
            for frame in 0..<frames {
                var sum: Int32 = 0
                for channel in 0..<channels { sum += Int32(input[frame * channels + channel]) }
                mono[frame] = Float(sum) * scale
            }
        }
        return frames
    }

    /// Feeds `count` mono floats (or, with `input == nil`, the end-of-stream marker) through
    /// libsoxr and appends every output sample produced.
    private func pump(_ soxr: OpaquePointer, input: UnsafePointer<Float>?, count: Int, into output: inout [Int16]) throws {
        var consumed = 0
        while true {
            var used = 0
            var produced = 0
            try monoOut.withUnsafeMutableBufferPointer { out in
                try Self.check(soxr_process(soxr, input.map { UnsafeRawPointer($0 + consumed) }, count - consumed, &used,
                                            out.baseAddress, out.count, &produced))
                append(UnsafeBufferPointer(rebasing: out[0..<produced]), to: &output)
            }
            consumed += used
            let outputFull = produced == monoOut.count
            if input == nil ? produced == 0 : (consumed >= count && !outputFull) { return }
        }
    }

    /// Converts mono floats to 16-bit with rounding and clipping, duplicating into each output channel.
    private func append(_ mono: UnsafeBufferPointer<Float>, to output: inout [Int16]) {
        for value in mono {
            let sample = Int16(max(-32_768, min(32_767, (value * 32_768).rounded())))
            for _ in 0..<outputChannels { output.append(sample) }
        }
    }
}
