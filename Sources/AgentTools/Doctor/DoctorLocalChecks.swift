import AgentCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The doctor's checks that need no network: credentials, audio devices, the state directory.
/// Pure reads of the configuration and the file system, on the CLI's thread.
enum DoctorLocalChecks {
    /// SIP and TURN credentials: present where needed, password files not readable by others.
    static func credentials(_ config: AgentConfig) -> [DoctorVerdict] {
        var out: [DoctorVerdict] = []
        if config.register || config.sipLogin != nil {
            if let login = config.sipLogin, config.sipPassword?.isEmpty == false {
                out.append(.ok("credentials", "SIP login \(login), password read\(config.sipPasswordFile.map { " from \($0)" } ?? "")"))
                if let file = config.sipPasswordFile, let mode = mode(file), mode & 0o077 != 0 {
                    out.append(.warning("credentials", "\(file) is readable by others (mode \(String(mode & 0o777, radix: 8))): chmod 600 it"))
                }
            } else if config.sipLogin == nil {
                out.append(.failure("credentials", "no SIP login: set [sip] login (or [sip] register = false for a server without SIP)"))
            } else {
                out.append(.failure("credentials", "no SIP password: set [sip] password_file, --sip-password-file or the sip-password credential"))
            }
        } else {
            out.append(.ok("credentials", "no SIP registration configured ([sip] register = false)"))
        }
        if config.turnServer != nil, config.turnUser == nil || config.turnPassword == nil {
            out.append(.failure("credentials", "[media] turn needs turn_user and turn_password_file"))
        }
        return out
    }

    /// The audio source and sink: files and pipes exist, commands are found, directories writable.
    static func audio(_ config: AgentConfig) -> [DoctorVerdict] {
        var out: [DoctorVerdict] = []
        switch config.audioSource {
        case .file(let path):
            out.append(FileManager.default.isReadableFile(atPath: path) ? .ok("audio", "source \(config.audioSource): readable")
                       : .failure("audio", "source \(config.audioSource): cannot read \(path)"))
        case .pipe(let path):
            out.append(isFIFO(path) ? .ok("audio", "source \(config.audioSource): a named pipe") : .failure("audio", "source \(config.audioSource): \(path) is not a named pipe (mkfifo it)"))
        case .command(let command):
            out.append(commandVerdict("source", command))
        case .alsa:
            out.append(openVerdict("source", config.audioSource.description) { try config.audioSource.open().close() })
        default:
            out.append(.ok("audio", "source \(config.audioSource)"))
        }
        switch config.audioSink {
        case .record(let directory):
            let kind = mode(directory).map { $0 & S_IFMT }
            let exists = kind != nil
            let target = exists ? directory : PathName.parent(directory)
            out.append(access(target.isEmpty ? "." : target, W_OK) == 0 && (!exists || kind == S_IFDIR)
                       ? .ok("audio", "sink \(config.audioSink): \(exists ? "writable directory" : "will be created")")
                       : .failure("audio", "sink \(config.audioSink): \(directory) is not a writable directory"))
        case .pipe(let path):
            out.append(isFIFO(path) ? .ok("audio", "sink \(config.audioSink): a named pipe") : .failure("audio", "sink \(config.audioSink): \(path) is not a named pipe (mkfifo it)"))
        case .command(let command):
            out.append(commandVerdict("sink", command))
        case .null:
            out.append(.ok("audio", "sink null (received audio is discarded)"))
        case .alsa:
            out.append(openVerdict("sink", config.audioSink.description) { try config.audioSink.open(callId: "doctor").sink.close() })
        }
        return out
    }

    /// The state directory: writable (or creatable), not writable by others, the token file private.
    static func stateDirectory(_ config: AgentConfig) -> [DoctorVerdict] {
        let dir = config.stateDir
        guard let mode = mode(dir) else {
            let parent = PathName.parent(dir)
            return [access(parent, W_OK) == 0 ? .ok("state", "\(dir) does not exist yet; it will be created")
                    : .failure("state", "\(dir) does not exist and \(parent) is not writable")]
        }
        var out: [DoctorVerdict] = []
        guard mode & S_IFMT == S_IFDIR else { return [.failure("state", "\(dir) is not a directory")] }
        out.append(access(dir, W_OK) == 0 ? .ok("state", "\(dir) writable (mode \(String(mode & 0o777, radix: 8)))")
                   : .failure("state", "\(dir) is not writable by this user (uid \(getuid()))"))
        if mode & 0o002 != 0 { out.append(.failure("state", "\(dir) is writable by everyone: chmod o-w it")) }
        let token = dir + "/token.json"
        if let tokenMode = self.mode(token), tokenMode & 0o077 != 0 {
            out.append(.failure("state", "\(token) is readable by others (mode \(String(tokenMode & 0o777, radix: 8))): chmod 600 it"))
        }
        return out
    }

    /// Opens and closes an ALSA device as a call would.
    private static func openVerdict(_ side: String, _ name: String, _ open: () throws -> Void) -> DoctorVerdict {
        do {
            try open()
            return .ok("audio", "\(side) \(name) opens at 48 kHz mono")
        } catch {
            return .failure("audio", "\(side) \(name): \(error)")
        }
    }

    private static func commandVerdict(_ side: String, _ command: String) -> DoctorVerdict {
        let program = command.split(separator: " ").first.map(String.init) ?? command
        let found = program.contains("/") ? (access(program, X_OK) == 0 ? program : nil)
            : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
        return found.map { .ok("audio", "\(side) command: \($0) found") } ?? .failure("audio", "\(side) command: \(program) not found or not executable")
    }

    private static func mode(_ path: String) -> mode_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode : nil
    }

    private static func isFIFO(_ path: String) -> Bool { mode(path).map { $0 & S_IFMT == S_IFIFO } ?? false }
}
