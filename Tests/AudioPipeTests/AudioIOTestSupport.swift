import TestSupport
import AudioPipe
import Foundation

/// Helpers for the audio I/O tests: temporary files, polling, WAV images and test data.
enum AudioIOTestSupport {
    /// A fresh directory under the system temporary directory.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "audiopipe-io-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }


    /// `count` samples that are never zero (so they can be told apart from silence padding).
    static func nonZeroSamples(count: Int, seed: Int = 0) -> [Int16] {
        (0..<count).map { index in
            let value = ((index + seed) * 7_919) % 30_001 - 15_000
            return Int16(value == 0 ? 1 : value)
        }
    }

    /// Samples as little-endian bytes.
    static func bytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { sample -> [UInt8] in
            let value = UInt16(bitPattern: sample)
            return [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
    }

    /// Little-endian bytes as samples.
    static func samples(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// A WAV image with a canonical or extensible `fmt ` chunk; `declaredDataBytes` overrides the data size field.
    static func wavImage(tag: UInt16 = 1, channels: Int, sampleRate: Int, bits: Int, data: [UInt8],
                         extensible: Bool = false, declaredDataBytes: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        func text(_ value: String) { bytes += Array(value.utf8) }
        func u32(_ value: Int) { bytes += withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { Array($0) } }
        func u16(_ value: Int) { bytes += withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { Array($0) } }
        let blockAlign = channels * bits / 8
        let fmtSize = extensible ? 40 : 16
        text("RIFF"); u32(4 + 8 + fmtSize + 8 + data.count); text("WAVE")
        text("LIST"); u32(3); text("abc"); bytes.append(0)          // an odd-sized chunk to skip, with its pad byte
        text("fmt "); u32(fmtSize); u16(extensible ? 0xFFFE : Int(tag)); u16(channels); u32(sampleRate)
        u32(sampleRate * blockAlign); u16(blockAlign); u16(bits)
        if extensible {
            u16(22); u16(bits); u32(channels == 2 ? 3 : 4)
            u16(Int(tag)); bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        text("data"); u32(declaredDataBytes ?? data.count)
        return bytes + data
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Reads every sample a live source yields until it reports its end, dropping zero padding.
    static func drain(_ source: some AudioSource, isAtEnd: () -> Bool, timeout: Double = 10) -> [Int16] {
        var collected: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !isAtEnd() && Date() < deadline {
            _ = source.read(into: &frame)
            collected += frame.filter { $0 != 0 }
            usleep(1_000)
        }
        return collected
    }

    /// Keeps writing `frame` until the sink throws (or 10 s pass); returns the error.
    static func firstWriteFailure(_ sink: some AudioSink, frame: [Int16]) -> AudioIOError? {
        var failure: AudioIOError?
        _ = eventually {
            do { try sink.write(frame) } catch { failure = error as? AudioIOError }
            return failure != nil
        }
        return failure
    }
}
