import Glibc

/// Finds DTMF key presses carried as tones inside decoded audio (callers from the phone network
/// behind gateways that send no RFC 4733), 48 kHz mono 16-bit, fed in frames of any size.
///
/// Goertzel filters at the eight DTMF frequencies over blocks of 612 samples (12.75 ms; 102 at
/// 8 kHz, the usual block). A block holds a key when, for its strongest row and column tone:
/// - each tone is at least `minimumToneLevel` (about -33 dBm0 per tone by default);
/// - the twist is within limits (the column tone at most 8 dB under the row tone, "normal twist",
///   and at most 6 dB over it, "reverse twist");
/// - each tone is 6 dB above the other tones of its group (relative peak), the column tone's second
///   harmonic is 16 dB under it, and the two tones carry at least `minimumToneShare` of the block's energy
///   (speech and music spread theirs and have harmonics).
///
/// Timing (ITU-T Q.24 / ETSI ES 201 235-3 style): a key is reported once three consecutive blocks
/// hold it (38 ms of tone; a tone of 20 ms touches two blocks at most, so it is never a key; a tone
/// of 50 ms always gives three; one of 40-50 ms gives two whole blocks and is found only when a
/// block it partly covers passes too: a gap to Q.24's 40 ms, taken for fewer false keys in speech
/// and music). It ends after
/// a pause: two quiet blocks, or three blocks with sound that is not the key (a 40 ms pause ends
/// it; one lost packet's concealment inside a tone does not split the key). A key is reported
/// when it starts, not when it ends, so it reaches an action about 40-60 ms after its tone starts.
///
/// Frequency deviation is not checked beyond the Goertzel bin's width (±1.5 % is accepted;
/// tones 3.5 % off are attenuated by about 1.5 dB, not always rejected).
///
/// Not thread-safe: one owner (the call's media clock thread, through `DTMFToneDetectorStage`).
/// Does not allocate after `init`.
public struct DTMFToneDetector: Sendable {
    /// Thresholds; the defaults follow the rules above.
    public struct Configuration: Sendable, Equatable {
        /// The weakest tone accepted, as the RMS of one tone in 16-bit units (-33 dBm0 ≈ 360).
        public var minimumToneLevel: Double = 360
        /// The most the column (high) tone may be under the row (low) tone, in dB.
        public var normalTwistDB: Double = 8
        /// The most the column tone may be over the row tone, in dB.
        public var reverseTwistDB: Double = 6
        /// How far each tone must be above the other tones of its group, in dB.
        public var relativePeakDB: Double = 6
        /// How far the column tone's second harmonic must be under it, in dB (speech and music
        /// have harmonics, DTMF has none). The row tone's is not checked: it falls among the
        /// column tones (2 x 697 Hz = 1394 Hz), whose leakage would reject true keys.
        public var harmonicRejectDB: Double = 16
        /// The share of the block's energy the two tones must carry (0-1).
        public var minimumToneShare: Double = 0.4

        public init() {}
    }

    /// Consecutive blocks holding a key before it is reported.
    static let startBlocks = 3
    /// The block length in samples at 48 kHz (12.75 ms).
    public static let blockSize = 612
    /// The row (low group) frequencies, Hz.
    public static let rowFrequencies: [Double] = [697, 770, 852, 941]
    /// The column (high group) frequencies, Hz.
    public static let columnFrequencies: [Double] = [1209, 1336, 1477, 1633]
    private static let keys: [Character] = ["1", "2", "3", "A", "4", "5", "6", "B", "7", "8", "9", "C", "*", "0", "#", "D"]

    private let coefficients: [Double]
    private let minimumToneEnergy: Double
    private let normalTwist: Double
    private let reverseTwist: Double
    private let relativePeak: Double
    private let toneShare: Double
    private let harmonicLimit: Double
    /// Filters: the 8 DTMF frequencies, then their second harmonics.
    private static let filterCount = 12

    // Goertzel state of the block being filled.
    private var s1: [Double]
    private var s2: [Double]
    private var blockEnergy = 0.0
    private var filled = 0

    // Timing state.
    private var candidate: Character?
    private var candidateBlocks = 0
    private var current: Character?
    private var missedBlocks = 0

    /// The number of keys reported so far.
    public private(set) var reported = 0

    /// Creates a detector.
    public init(_ configuration: Configuration = Configuration()) {
        let n = Double(Self.blockSize)
        let base = Self.rowFrequencies + Self.columnFrequencies
        coefficients = (base + Self.columnFrequencies.map { 2 * $0 }).map { 2 * cos(2 * Double.pi * $0 / 48_000) }
        harmonicLimit = Self.ratio(-configuration.harmonicRejectDB)
        // A tone of RMS r over n samples gives |X|^2 = (r * sqrt(2) * n / 2)^2 = r^2 n^2 / 2.
        minimumToneEnergy = configuration.minimumToneLevel * configuration.minimumToneLevel * n * n / 2
        normalTwist = Self.ratio(configuration.normalTwistDB)
        reverseTwist = Self.ratio(configuration.reverseTwistDB)
        relativePeak = Self.ratio(configuration.relativePeakDB)
        toneShare = configuration.minimumToneShare
        s1 = [Double](repeating: 0, count: Self.filterCount)
        s2 = [Double](repeating: 0, count: Self.filterCount)
    }

    private static func ratio(_ decibels: Double) -> Double { pow(10, decibels / 10) }

    /// Feeds samples; calls `report` with each key as it starts (each press once).
    public mutating func process(_ samples: UnsafeBufferPointer<Int16>, report: (Character) -> Void) {
        var index = 0
        while index < samples.count {
            let take = min(Self.blockSize - filled, samples.count - index)
            accumulate(UnsafeBufferPointer(rebasing: samples[index..<(index + take)]))
            index += take
            filled += take
            if filled == Self.blockSize {
                let key = classifyBlock()
                let quiet = blockEnergy * Double(Self.blockSize) / 2 < minimumToneEnergy
                resetBlock()
                if let started = advance(with: key, quiet: quiet) {
                    reported += 1
                    report(started)
                }
            }
        }
    }

    /// Forgets any key in progress and the partial block (for example after a hold).
    public mutating func reset() {
        resetBlock()
        candidate = nil
        candidateBlocks = 0
        current = nil
        missedBlocks = 0
    }

    private mutating func accumulate(_ samples: UnsafeBufferPointer<Int16>) {
        coefficients.withUnsafeBufferPointer { coefficient in
            s1.withUnsafeMutableBufferPointer { s1 in
                s2.withUnsafeMutableBufferPointer { s2 in
                    var energy = 0.0
                    for sample in samples {
                        let x = Double(sample)
                        energy += x * x
                    }
                    blockEnergy += energy
                    for k in 0..<Self.filterCount {
                        var a = s1[k], b = s2[k]
                        let c = coefficient[k]
                        for sample in samples {
                            let next = Double(sample) + c * a - b
                            b = a
                            a = next
                        }
                        s1[k] = a
                        s2[k] = b
                    }
                }
            }
        }
    }

    private mutating func resetBlock() {
        for k in 0..<Self.filterCount {
            s1[k] = 0
            s2[k] = 0
        }
        blockEnergy = 0
        filled = 0
    }

    /// |X_k|^2 of the block just filled.
    private func power(_ k: Int) -> Double {
        s1[k] * s1[k] + s2[k] * s2[k] - coefficients[k] * s1[k] * s2[k]
    }

    /// The key this block holds, if it passes every check.
    private func classifyBlock() -> Character? {
        var row = 0, column = 4
        var powers = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &powers) { raw in
            let p = raw.bindMemory(to: Double.self)
            for k in 0..<Self.filterCount { p[k] = power(k) }
        }
        return withUnsafeBytes(of: powers) { raw -> Character? in
            let p = raw.bindMemory(to: Double.self)
            for k in 1..<4 where p[k] > p[row] { row = k }
            for k in 5..<8 where p[k] > p[column] { column = k }
            let low = p[row], high = p[column]
            guard low >= minimumToneEnergy, high >= minimumToneEnergy else { return nil }
            guard high * normalTwist >= low, low * reverseTwist >= high else { return nil }
            for k in 0..<4 where k != row && p[k] * relativePeak > low { return nil }
            for k in 4..<8 where k != column && p[k] * relativePeak > high { return nil }
            if p[column + 4] > high * harmonicLimit { return nil }
            // |X|^2 of a tone is (its energy in the block) * n / 2.
            let toneEnergy = (low + high) * 2 / Double(Self.blockSize)
            guard toneEnergy >= toneShare * blockEnergy else { return nil }
            return Self.keys[row * 4 + column - 4]
        }
    }

    /// Applies one block's decision to the timing rules; returns a key that starts now.
    private mutating func advance(with key: Character?, quiet: Bool) -> Character? {
        if let active = current {
            if key == active {
                missedBlocks = 0
                return nil
            }
            // A quiet block is a pause for sure; a block with sound that is not the key may be a
            // lost packet's concealment inside the tone.
            missedBlocks += quiet ? 2 : 1
            if missedBlocks < 3 { return nil }
            current = nil
            missedBlocks = 0
            // The block that ended the key may start the next one.
            candidate = key
            candidateBlocks = key == nil ? 0 : 1
            return nil
        }
        guard let key else {
            candidate = nil
            candidateBlocks = 0
            return nil
        }
        if key == candidate {
            candidateBlocks += 1
        } else {
            candidate = key
            candidateBlocks = 1
        }
        guard candidateBlocks >= Self.startBlocks else { return nil }
        current = key
        candidate = nil
        candidateBlocks = 0
        missedBlocks = 0
        return key
    }
}
