/// A small deterministic generator (SplitMix64) so randomized tests replay exactly.
public struct RTPSeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}

/// Parses hex with optional spaces, e.g. "80 E0 12 34".
public func rtpHexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}
