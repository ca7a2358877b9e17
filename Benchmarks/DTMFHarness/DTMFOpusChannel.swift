import AudioPipe
import Foundation
import Glibc
import TestSupport

/// A signal sent through the path a call's audio takes, in 20 ms frames: Opus at the agent's
/// settings, packets lost at random (`lossPercent`, seeded; a lost frame is recovered from the
/// next packet's in-band FEC when it has one, else concealed, as the agent's receiver does), then
/// the in-audio DTMF detector on the decoded frames. Records where each key was reported and the
/// detector's CPU time alone.
public struct DTMFOpusChannel {
    /// One key the detector reported: the key and the sample (of the sent signal) at which the
    /// frame that revealed it ends.
    public struct Detection: Sendable, Equatable {
        public let key: Character
        public let sample: Int
    }

    public let lossPercent: Double
    public private(set) var detections: [Detection] = []
    /// Thread CPU seconds spent in the detector, and frames it saw.
    public private(set) var detectorSeconds = 0.0
    public private(set) var frames = 0
    /// Frames lost (concealed or FEC-recovered).
    public private(set) var lostFrames = 0

    private let encoder: OpusEncoder
    private let decoder: OpusDecoder
    private var detector = DTMFToneDetector()
    private var random: RTPSeededGenerator

    public init(lossPercent: Double, seed: UInt64) throws {
        self.lossPercent = lossPercent
        var settings = OpusEncoderConfiguration()
        settings.inbandFEC = lossPercent > 0
        encoder = try OpusEncoder(configuration: settings)
        if lossPercent > 0 { try encoder.setExpectedPacketLoss(percent: Int(lossPercent.rounded(.up))) }
        decoder = try OpusDecoder()
        random = RTPSeededGenerator(seed: seed)
    }

    /// Sends `signal` (padded to whole frames) through the channel.
    public mutating func run(_ signal: [Int16]) throws {
        let frameSize = AudioPipe.samplesPerFrame
        let count = (signal.count + frameSize - 1) / frameSize
        var padded = signal
        padded += [Int16](repeating: 0, count: count * frameSize - signal.count)
        var packets: [[UInt8]] = []
        packets.reserveCapacity(count)
        try padded.withUnsafeBufferPointer { all in
            for index in 0..<count {
                packets.append(try encoder.encode(UnsafeBufferPointer(rebasing: all[(index * frameSize)..<((index + 1) * frameSize)])))
            }
        }
        let lost = (0..<count).map { _ in Double.random(in: 0..<100, using: &random) < lossPercent }
        var out = [Int16](repeating: 0, count: frameSize)
        for index in 0..<count {
            out.withUnsafeMutableBufferPointer { frame in
                if !lost[index] {
                    _ = packets[index].withUnsafeBytes { try? decoder.decode($0, into: frame) }
                } else if index + 1 < count, !lost[index + 1] {
                    lostFrames += 1
                    _ = packets[index + 1].withUnsafeBytes { decoder.decodeFEC(from: $0, into: frame) }
                } else {
                    lostFrames += 1
                    _ = decoder.conceal(into: frame)
                }
            }
            let before = Self.threadCPU()
            let end = (index + 1) * frameSize
            var found: [Character] = []
            out.withUnsafeBufferPointer { frame in detector.process(frame) { found.append($0) } }
            detectorSeconds += Self.threadCPU() - before
            frames += 1
            for key in found { detections.append(Detection(key: key, sample: end)) }
        }
    }

    /// This thread's CPU time in seconds.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
