// Compiled into every fuzz harness (scripts/fuzz.py). Runs on libFuzzer's one thread.

import Foundation

/// Stops the run with a message when an invariant of the code under test does not hold, so
/// libFuzzer keeps the input as a crash (a plain `precondition` would print no context).
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz invariant broken: \(message())\n".utf8))
        abort()
    }
}

/// Reads a fuzz input from the front: fixed-size numbers, then what is left. Reading past the
/// end gives zeros, so every input is usable and the harness never decides to skip one.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    /// True when every byte was read.
    var isEmpty: Bool { offset >= bytes.count }

    /// The next byte (0 past the end).
    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    /// The next 16 bits, big-endian.
    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    /// The next 32 bits, big-endian.
    mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    /// Up to `count` next bytes.
    mutating func take(_ count: Int) -> [UInt8] {
        let start = min(offset, bytes.count)
        let end = min(start + max(count, 0), bytes.count)
        offset = end
        return Array(bytes[start..<end])
    }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] { take(bytes.count) }

    /// The whole input, whatever was read.
    var all: [UInt8] { bytes }
}
