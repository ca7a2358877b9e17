import AudioPipe
import AudioCodec
#if canImport(Glibc)
import Glibc
#endif

// The two codecs of `CallMediaBenchmark.CheapCodecs` (wcs-bench-peer --cheap): made by `CallCodecSet`
// instead of libopus's encoder and decoder when a call's configuration carries their `factory`.

/// Hands out pre-encoded payloads in a loop, whatever PCM it is given (clock thread only).
final class ReplayEncoder: AudioEncoder {
    private let frames: [[UInt8]]
    private var next = 0

    init(frames: [[UInt8]]) { self.frames = frames }

    var clockRate: Int { AudioFormat.sampleRate }
    var lastFrameWasDTX: Bool { false }

    func encode(_ pcm: UnsafeBufferPointer<Int16>) throws -> [UInt8] {
        try check(pcm)
        defer { advance() }
        return frames[next]
    }

    func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        try check(pcm)
        defer { advance() }
        let frame = frames[next]
        guard frame.count <= output.count else {
            throw CodecError.invalidConfiguration("payload of \(frame.count) bytes exceeds the \(output.count)-byte buffer")
        }
        output.copyBytes(from: frame)
        return frame.count
    }

    private func check(_ pcm: UnsafeBufferPointer<Int16>) throws {
        guard pcm.count == AudioFormat.samplesPerFrame else {
            throw CodecError.wrongFrameSize(expected: AudioFormat.samplesPerFrame, got: pcm.count)
        }
    }

    private func advance() { next = (next + 1) % frames.count }
}

/// Decodes the first packet and one in `every` with libopus; for the others reads only the TOC
/// (`OpusDecoder.sampleCount`) and writes silence of that length. Loss is silence too (no PLC).
/// Clock thread only; findings go to the `CheapCodecs` (locked).
final class SampledOpusDecoder: AudioDecoder {
    private let opus: OpusDecoder
    private let every: Int
    private let report: CallMediaBenchmark.CheapCodecs
    private var seen = 0

    init(every: Int, report: CallMediaBenchmark.CheapCodecs) throws {
        opus = try OpusDecoder()
        self.every = every
        self.report = report
    }

    var clockRate: Int { AudioFormat.sampleRate }

    func decode(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        defer { seen += 1 }
        guard seen % every == 0 else { return try silence(of: payload, into: output) }
        do {
            let count = try opus.decode(payload, into: output)
            let level = Self.rmsDB(UnsafeBufferPointer(rebasing: output[0..<count]))
            report.record { found in
                found.decoded += 1
                found.quietestDB = min(found.quietestDB ?? level, level)
                found.loudestDB = max(found.loudestDB ?? level, level)
            }
            return count
        } catch {
            report.record { $0.failed += 1 }
            throw error
        }
    }

    func decode(_ payload: UnsafeRawBufferPointer) throws -> [Int16] {
        var samples = [Int16](repeating: 0, count: 5_760)
        let count = try samples.withUnsafeMutableBufferPointer { try decode(payload, into: $0) }
        return Array(samples[0..<count])
    }

    func conceal() -> [Int16] { [Int16](repeating: 0, count: AudioFormat.samplesPerFrame) }

    func decodeFEC(from nextPayload: UnsafeRawBufferPointer) -> [Int16] { conceal() }

    func conceal(into output: UnsafeMutableBufferPointer<Int16>) -> Int { Self.zero(output, AudioFormat.samplesPerFrame) }

    func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        conceal(into: output)
    }

    /// Silence as long as the packet says it is; a packet whose TOC libopus cannot read fails.
    private func silence(of payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        do {
            let count = try OpusDecoder.sampleCount(of: payload)
            report.record { $0.checked += 1 }
            return Self.zero(output, count)
        } catch {
            report.record { $0.failed += 1 }
            throw error
        }
    }

    private static func zero(_ output: UnsafeMutableBufferPointer<Int16>, _ count: Int) -> Int {
        let count = min(count, output.count)
        UnsafeMutableBufferPointer(rebasing: output[0..<count]).update(repeating: 0)
        return count
    }

    /// RMS of `samples` in dB relative to full scale (-120 for digital silence).
    static func rmsDB(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return -120 }
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return energy > 0 ? max(-120, 10 * log10(energy / (32_768.0 * 32_768.0))) : -120
    }
}
