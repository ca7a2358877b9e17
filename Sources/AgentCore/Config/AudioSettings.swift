import AudioPipe
import FoundationEssentials

/// Where a call's outgoing audio comes from (`[audio] source`, `--audio-source`).
public enum AudioSourceSpec: Sendable, Equatable, CustomStringConvertible {
    /// A WAV file (any rate/channels, 16-bit PCM), played once, then silence.
    case file(String)
    /// A sine tone.
    case tone(Double)
    case silence
    /// Raw s16le 48 kHz mono from a FIFO or file.
    case pipe(String)
    /// Raw s16le 48 kHz mono from a command's stdout, e.g. `arecord -f S16_LE -r 48000 -c 1 -t raw`.
    case command(String)
    /// An ALSA capture PCM through alsa-lib (`default`, `hw:1,0`, `pipewire`, `pulse`, an asoundrc name).
    case alsa(String)

    /// Parses `file:PATH`, `tone:HZ`, `silence`, `pipe:PATH`, `command:CMD` or `alsa:PCM`.
    public init(parsing text: String) throws {
        let (kind, value) = AudioSpecText.split(text)
        switch kind {
        case "file" where !value.isEmpty: self = .file(value)
        case "tone":
            guard let hz = Double(value), hz > 0, hz < 24_000 else {
                throw ConfigError("audio source \"\(text)\": tone needs a frequency in Hz below 24000, e.g. tone:440")
            }
            self = .tone(hz)
        case "silence" where value.isEmpty: self = .silence
        case "pipe" where !value.isEmpty: self = .pipe(value)
        case "command" where !value.isEmpty: self = .command(value)
        case "alsa" where !value.isEmpty: self = .alsa(value)
        default:
            throw ConfigError("invalid audio source \"\(text)\": expected file:PATH, tone:HZ, silence, pipe:PATH, command:CMD or alsa:PCM")
        }
    }

    /// Opens the source for one call. A missing WAV file is an error here, before the call is answered.
    public func open() throws -> AudioSource {
        switch self {
        case .file(let path): return try WAVFileSource(path: path)
        case .tone(let hz): return ToneSource(frequency: hz, amplitude: 0.3)
        case .silence: return SilenceSource()
        case .pipe(let path): return try RawPCMSource(path: path)
        case .command(let command): return try CommandSource(command: command)
        case .alsa(let device): return try ALSASource(device: device)
        }
    }

    public var description: String {
        switch self {
        case .file(let p): "file:\(p)"
        case .tone(let hz): "tone:\(hz.rounded() == hz ? String(Int(hz)) : String(hz))"
        case .silence: "silence"
        case .pipe(let p): "pipe:\(p)"
        case .command(let c): "command:\(c)"
        case .alsa(let d): "alsa:\(d)"
        }
    }
}

/// Where a call's incoming audio goes (`[audio] sink`, `--audio-sink`).
public enum AudioSinkSpec: Sendable, Equatable, CustomStringConvertible {
    /// A WAV recording per call, named `<call id>.wav`, in this directory.
    case record(String)
    /// Raw s16le 48 kHz mono into a FIFO or file.
    case pipe(String)
    /// Raw s16le 48 kHz mono into a command's stdin, e.g. `aplay -f S16_LE -r 48000 -c 1 -t raw`.
    case command(String)
    /// An ALSA playback PCM through alsa-lib.
    case alsa(String)
    case null

    /// Parses `record:DIR`, `pipe:PATH`, `command:CMD`, `alsa:PCM` or `null`.
    public init(parsing text: String) throws {
        let (kind, value) = AudioSpecText.split(text)
        switch kind {
        case "record" where !value.isEmpty: self = .record(value)
        case "pipe" where !value.isEmpty: self = .pipe(value)
        case "command" where !value.isEmpty: self = .command(value)
        case "null" where value.isEmpty: self = .null
        case "alsa" where !value.isEmpty: self = .alsa(value)
        default:
            throw ConfigError("invalid audio sink \"\(text)\": expected record:DIR, pipe:PATH, command:CMD, alsa:PCM or null")
        }
    }

    /// Opens the sink for one call; `recordingPath` is set for `record:`.
    public func open(callId: String) throws -> (sink: AudioSink, recordingPath: String?) {
        switch self {
        case .record(let dir):
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            // The call id is the server's text: any length and bytes map to a unique, safe name.
            let path = PathName.joined(dir, "\(SafeFileName.stem(for: callId)).wav")
            return (try WAVFileSink(path: path), path)
        case .pipe(let path): return (try RawPCMSink(path: path), nil)
        case .command(let command): return (try CommandSink(command: command), nil)
        case .null: return (NullSink(), nil)
        case .alsa(let device): return (try ALSASink(device: device), nil)
        }
    }

    public var description: String {
        switch self {
        case .record(let d): "record:\(d)"
        case .pipe(let p): "pipe:\(p)"
        case .command(let c): "command:\(c)"
        case .null: "null"
        case .alsa(let d): "alsa:\(d)"
        }
    }
}

/// When an incoming call is answered (`[audio] answer`, `--answer`).
public enum AnswerMode: Sendable, Equatable, CustomStringConvertible {
    /// Only on `wcs-agent answer` (or the terminal prompt).
    case manual
    /// At once.
    case auto
    /// After ringing this many seconds (unless answered or declined before).
    case after(Double)

    /// Parses `manual`, `auto` or `after:SECONDS`.
    public init(parsing text: String) throws {
        let (kind, value) = AudioSpecText.split(text)
        switch kind {
        case "manual" where value.isEmpty: self = .manual
        case "auto" where value.isEmpty: self = .auto
        case "after":
            guard let s = Double(value), s >= 0, s <= 600 else {
                throw ConfigError("answer \"\(text)\": after needs seconds between 0 and 600, e.g. after:3")
            }
            self = .after(s)
        default: throw ConfigError("invalid answer mode \"\(text)\": expected manual, auto or after:SECONDS")
        }
    }

    public var description: String {
        switch self {
        case .manual: "manual"
        case .auto: "auto"
        case .after(let s): "after:\(s)"
        }
    }
}

enum AudioSpecText {
    /// `kind:value` with the kind lowercased; a bare word has an empty value.
    static func split(_ text: String) -> (String, String) {
        let trimmed = text.trimmingSpaces()
        guard let colon = trimmed.firstIndex(of: ":") else { return (trimmed.lowercased(), "") }
        return (trimmed[..<colon].lowercased(), String(trimmed[trimmed.index(after: colon)...]).trimmingSpaces())
    }
}
