import FoundationEssentials

/// Errors from the audio codecs and the resampler, each with a readable description.
public enum CodecError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A libopus call failed: the function, the libopus error code and `opus_strerror`'s text.
    case opus(function: String, code: Int32, message: String)
    /// An encoder was given a frame of the wrong length.
    case wrongFrameSize(expected: Int, got: Int)
    /// A decoder was given an empty payload (a lost packet is signalled with `conceal()`).
    case emptyPayload
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// libsoxr reported an error.
    case resampler(String)
    /// libsoxr (loaded at the first resampler that changes the rate) cannot be loaded: the loader's reason.
    case resamplerUnavailable(String)

    public var description: String {
        switch self {
        case let .opus(function, code, message):
            "\(function) failed: \(message) (opus error \(code))"
        case let .wrongFrameSize(expected, got):
            "wrong frame size: expected \(expected) samples, got \(got)"
        case .emptyPayload:
            "empty payload (use conceal() for a lost packet)"
        case let .invalidConfiguration(text):
            "invalid codec configuration: \(text)"
        case let .resampler(text):
            "resampler error: \(text)"
        case let .resamplerUnavailable(reason):
            "resampler unavailable: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
