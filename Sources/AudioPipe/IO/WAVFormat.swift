import FoundationEssentials
import Glibc

/// The `fmt ` chunk of a RIFF/WAVE file.
public struct WAVFormat: Sendable, Equatable {
    /// `WAVE_FORMAT_PCM`.
    public static let pcmTag: UInt16 = 0x0001
    /// `WAVE_FORMAT_EXTENSIBLE`: the real encoding is in the sub-format GUID.
    public static let extensibleTag: UInt16 = 0xFFFE

    /// The format tag (for extensible files: the first two bytes of the sub-format GUID).
    public var formatTag: UInt16
    /// Interleaved channels.
    public var channels: Int
    /// Sample frames per second.
    public var sampleRate: Int
    /// Bits per sample.
    public var bitsPerSample: Int
    /// Bytes per sample frame (all channels).
    public var blockAlign: Int

    /// 48 kHz mono 16-bit PCM, what `WAVFileSink` writes.
    public static let internalFormat = WAVFormat(formatTag: pcmTag, channels: 1, sampleRate: AudioPipe.sampleRate,
                                                 bitsPerSample: 16, blockAlign: 2)

    /// The canonical 44-byte header for 16-bit PCM with `dataBytes` of samples.
    func header(dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44)
        func append(_ text: String) { bytes += Array(text.utf8) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        append("RIFF"); append32(36 + dataBytes); append("WAVE")
        append("fmt "); append32(16); append16(Int(formatTag)); append16(channels); append32(sampleRate)
        append32(sampleRate * blockAlign); append16(blockAlign); append16(bitsPerSample)
        append("data"); append32(dataBytes)
        return bytes
    }
}

/// Why a WAV file was rejected.
public enum WAVError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// No `RIFF….WAVE` signature.
    case notWAV(String)
    /// The file ends inside the header or inside the data chunk.
    case truncated(String)
    /// A required chunk is absent.
    case missingChunk(String)
    /// The samples are not integer PCM (float, ADPCM, G.711, MP3, …).
    case unsupportedEncoding(tag: UInt16, name: String)
    /// Integer PCM of a width other than 16 bits.
    case unsupportedBitDepth(Int)
    /// The `fmt ` chunk is self-contradictory (zero channels, zero rate, bad block size).
    case invalidFormat(String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read WAV file \(path): \(reason)"
        case let .notWAV(detail): "not a RIFF/WAVE file: \(detail)"
        case let .truncated(detail): "truncated WAV file: \(detail)"
        case let .missingChunk(name): "WAV file has no '\(name)' chunk"
        case let .unsupportedEncoding(tag, name):
            "unsupported WAV encoding \(name) (format tag 0x\(String(tag, radix: 16, uppercase: true))); only 16-bit integer PCM is supported"
        case let .unsupportedBitDepth(bits): "unsupported \(bits)-bit PCM; only 16-bit PCM is supported"
        case let .invalidFormat(detail): "invalid WAV format: \(detail)"
        }
    }

    public var errorDescription: String? { description }

    /// A readable name for common WAVE format tags.
    static func encodingName(_ tag: UInt16) -> String {
        switch tag {
        case 0x0002: "Microsoft ADPCM"
        case 0x0003: "IEEE float"
        case 0x0006: "A-law"
        case 0x0007: "µ-law"
        case 0x0011: "IMA ADPCM"
        case 0x0031: "GSM 6.10"
        case 0x0055: "MPEG layer 3"
        default: "0x" + String(tag, radix: 16, uppercase: true)
        }
    }
}

/// Parses the chunk structure of a RIFF/WAVE image.
enum WAVParser {
    /// The GUID tail shared by every `KSDATAFORMAT_SUBTYPE_*` (after the 2-byte format tag).
    static let subFormatGUIDTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Validates the header and returns the format and the byte range of the samples.
    static func parse(_ bytes: [UInt8]) throws -> (format: WAVFormat, data: Range<Int>) {
        guard bytes.count >= 12 else { throw WAVError.truncated("\(bytes.count) bytes, shorter than a RIFF header") }
        guard bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            let start = String(decoding: bytes[0..<4].map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            throw WAVError.notWAV(bytes[0..<4].elementsEqual("RF64".utf8) ? "RF64 is not supported" : "starts with '\(start)'")
        }
        var format: WAVFormat?
        var offset = 12
        while offset + 8 <= bytes.count {
            let identifier = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(uint32(bytes, offset + 4))
            let body = offset + 8
            switch identifier {
            case "fmt ":
                guard body + size <= bytes.count else { throw WAVError.truncated("the 'fmt ' chunk runs past the end of the file") }
                format = try parseFormat(bytes, body, size)
            case "data":
                guard let format else { throw WAVError.missingChunk("fmt ") }
                let available = bytes.count - body
                let length: Int
                if size == 0xFFFF_FFFF || size == 0x7FFF_FFFF || size == 0 && available > 0 {   // streamed: length unknown
                    length = available
                } else {
                    guard size <= available else {
                        throw WAVError.truncated("the data chunk declares \(size) bytes but only \(available) are present")
                    }
                    length = size
                }
                let whole = length - length % format.blockAlign
                return (format, body..<(body + whole))
            default:
                break
            }
            offset = body + size + (size & 1)                // chunks are padded to even sizes
        }
        if offset != bytes.count {
            throw WAVError.truncated("the file ends inside a chunk (at byte \(bytes.count), chunk walk reached \(offset))")
        }
        throw WAVError.missingChunk(format == nil ? "fmt " : "data")
    }

    private static func parseFormat(_ bytes: [UInt8], _ start: Int, _ size: Int) throws -> WAVFormat {
        guard size >= 16 else { throw WAVError.truncated("the 'fmt ' chunk has \(size) bytes, fewer than 16") }
        var tag = uint16(bytes, start)
        let channels = Int(uint16(bytes, start + 2))
        let rate = Int(uint32(bytes, start + 4))
        let blockAlign = Int(uint16(bytes, start + 12))
        let bits = Int(uint16(bytes, start + 14))
        if tag == WAVFormat.extensibleTag {
            guard size >= 40 else { throw WAVError.truncated("the extensible 'fmt ' chunk has \(size) bytes, fewer than 40") }
            let guid = start + 24
            tag = uint16(bytes, guid)
            guard bytes[(guid + 2)..<(guid + 16)].elementsEqual(subFormatGUIDTail) else {
                throw WAVError.unsupportedEncoding(tag: WAVFormat.extensibleTag, name: "extensible with a non-standard sub-format")
            }
        }
        guard tag == WAVFormat.pcmTag else { throw WAVError.unsupportedEncoding(tag: tag, name: WAVError.encodingName(tag)) }
        guard bits == 16 else { throw WAVError.unsupportedBitDepth(bits) }
        guard channels > 0 else { throw WAVError.invalidFormat("zero channels") }
        guard rate > 0 else { throw WAVError.invalidFormat("sample rate 0") }
        guard blockAlign == channels * 2 else {
            throw WAVError.invalidFormat("block size \(blockAlign) does not match \(channels) channels of 16 bits")
        }
        return WAVFormat(formatTag: WAVFormat.pcmTag, channels: channels, sampleRate: rate, bitsPerSample: bits, blockAlign: blockAlign)
    }

    private static func uint16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
