import AudioPipe
import Glibc

/// What libopus costs at a call's cadence against back to back (`wcs-bench --opus-cadence`).
///
/// The Opus floor of `make bench` (`CodecBenchmark.run`) encodes thousands of frames back to back:
/// the codec's code, tables and state stay in the CPU's caches. A call encodes and decodes one
/// frame every 20 ms and its thread sleeps in between, while other work (other processes, the
/// hypervisor's other guests) runs on the core and evicts them. This measures both on one thread,
/// in that thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, so other processes' turns do not count),
/// in alternating blocks so a changing machine load hits both alike. Each frame is one encode and
/// one decode of that packet, as one tick of a call does, with the agent's encoder settings
/// (`OpusEncoderConfiguration()`).
public enum CodecCadenceBenchmark {
    /// The signal encoded.
    public enum Signal: String, Sendable, CaseIterable {
        /// The Opus floor's voice-like signal (`CodecBenchmark.benchmarkSignal`).
        case floor
        /// The bench agent's source: an 880 Hz sine at half of full scale (`tone:880`).
        case tone880
    }

    /// Mean CPU microseconds per frame (encode + decode) in each mode, over every block.
    public struct Result: Sendable {
        /// Frames encoded and decoded back to back, no sleep (as the floor).
        public let backToBackMicros: Double
        /// One frame per period, the thread sleeping to each absolute deadline in between.
        public let pacedMicros: Double
        /// Frames measured in each mode.
        public let framesPerMode: Int
    }

    /// Runs `blocks` pairs of blocks (back to back, then paced), `framesPerBlock` frames each,
    /// `periodNanoseconds` apart in the paced blocks. The first block of each mode warms up and is
    /// not counted. Takes about `blocks × framesPerBlock × period` of wall time.
    public static func run(signal: Signal, blocks: Int = 6, framesPerBlock: Int = 100,
                           periodNanoseconds: Int = 20_000_000) throws -> Result {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        let samples = samples(of: signal)
        var position = 0
        var packet = [UInt8](repeating: 0, count: 1_500)
        var decoded = [Int16](repeating: 0, count: AudioFormat.samplesPerFrame)
        func frame() throws {
            try samples.withUnsafeBufferPointer { all in
                let pcm = UnsafeBufferPointer(rebasing: all[position..<(position + AudioFormat.samplesPerFrame)])
                let length = try packet.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
                _ = try packet.withUnsafeBytes { bytes in
                    try decoded.withUnsafeMutableBufferPointer {
                        try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), into: $0)
                    }
                }
            }
            position = (position + AudioFormat.samplesPerFrame) % samples.count
        }
        var backToBack = 0.0
        var paced = 0.0
        for block in 0...blocks {
            let start = threadCPUSeconds()
            for _ in 0..<framesPerBlock { try frame() }
            if block > 0 { backToBack += threadCPUSeconds() - start }
            var deadline = monotonicNanoseconds()
            var cpu = 0.0
            for _ in 0..<framesPerBlock {
                deadline += periodNanoseconds
                sleep(until: deadline)
                let before = threadCPUSeconds()
                try frame()
                cpu += threadCPUSeconds() - before
            }
            if block > 0 { paced += cpu }
        }
        let frames = blocks * framesPerBlock
        return Result(backToBackMicros: backToBack * 1e6 / Double(frames), pacedMicros: paced * 1e6 / Double(frames),
                      framesPerMode: frames)
    }

    /// One second of `signal` (a whole number of frames, so it loops without a seam).
    static func samples(of signal: Signal) -> [Int16] {
        switch signal {
        case .floor:
            return CodecBenchmark.benchmarkSignal(samples: AudioFormat.sampleRate)
        case .tone880:
            return (0..<AudioFormat.sampleRate).map { index in
                Int16((sin(2 * Double.pi * 880 * Double(index) / Double(AudioFormat.sampleRate)) * 0.5 * 32_767).rounded())
            }
        }
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func monotonicNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    private static func sleep(until deadline: Int) {
        var time = timespec(tv_sec: deadline / 1_000_000_000, tv_nsec: deadline % 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
