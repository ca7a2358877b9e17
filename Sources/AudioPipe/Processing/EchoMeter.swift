import Glibc

/// The figures `VoiceProcessingStage` measures per 10 ms block: whether the far end talks (its
/// block energy within the last half second above -50 dBFS), ERLE (the microphone's energy over
/// the output's, each smoothed over about a second of blocks while the far end talks) and a
/// double-talk flag (a block where the output keeps more than a tenth of the microphone's energy
/// while the far end talks and the microphone hears something).
struct EchoMeter {
    /// -50 dBFS as the mean square of an int16 block.
    private static let activeEnergy = 32768.0 * 32768.0 * 1e-5
    private static let smoothing = 0.01
    private var farHold = 0
    private var smoothedIn = 0.0
    private var smoothedOut = 0.0
    private(set) var doubleTalk = false
    private(set) var blocks = 0
    var ticks = 0

    var farActive: Bool { farHold > 0 }

    var erleDb: Double? {
        guard smoothedIn > 0, smoothedOut > 0 else { return nil }
        return 10 * log10(smoothedIn / smoothedOut)
    }

    static func energy(_ block: UnsafeBufferPointer<Int16>) -> Double {
        var sum = 0.0
        for sample in block { sum += Double(sample) * Double(sample) }
        return sum / Double(max(block.count, 1))
    }

    mutating func far(_ block: UnsafeBufferPointer<Int16>) {
        if Self.energy(block) > Self.activeEnergy { farHold = 50 } else if farHold > 0 { farHold -= 1 }
    }

    mutating func near(before: Double, after: Double) {
        blocks += 1
        guard farActive else {
            doubleTalk = false
            return
        }
        smoothedIn += Self.smoothing * (before - smoothedIn)
        smoothedOut += Self.smoothing * (max(after, 1) - smoothedOut)
        doubleTalk = before > Self.activeEnergy && after > before * 0.1
    }
}
