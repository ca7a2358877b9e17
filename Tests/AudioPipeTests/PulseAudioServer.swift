import Foundation
import TestSupport

/// A private PulseAudio server (Debian's `pulseaudio`) for the ALSA tests: no card, one null sink
/// (a real-time clocked device whose monitor source hears what is played), a native-protocol socket
/// in the test's directory with anonymous access, no D-Bus, no shared memory, no autospawn. ALSA
/// reaches it through the `pulse` plugin of libasound2-plugins, as a desktop user's `alsa:pulse`
/// would. Killed when released.
///
/// Used from one test thread.
final class PulseAudioServer {
    static let executable = "/usr/bin/pulseaudio"
    /// alsa-lib loads `type pulse` from this module (libasound2-plugins).
    static let alsaPlugin = "/usr/lib/\(multiarch)/alsa-lib/libasound_module_pcm_pulse.so"
    static let multiarch: String = {
        #if arch(x86_64)
        "x86_64-linux-gnu"
        #elseif arch(arm64)
        "aarch64-linux-gnu"
        #else
        "unknown"
        #endif
    }()

    /// True when the server and the ALSA plugin are installed (`make deps`).
    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: executable) && FileManager.default.fileExists(atPath: alsaPlugin)
    }

    /// The server's socket, for the `server "unix:…"` of an ALSA `pulse` PCM.
    let socketPath: String
    let logPath: String
    private let process: ChildProcess

    /// The null sink the ALSA tests play to.
    static let defaultModules = ["module-null-sink sink_name=testsink rate=48000 channels=1"]

    /// Starts the server with `modules` (each a `-L` line: name and arguments) before the socket.
    init(directory: TemporaryDirectory, modules: [String] = PulseAudioServer.defaultModules) throws {
        socketPath = directory.file("pulse-native")
        logPath = directory.file("pulseaudio.log")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["XDG_CONFIG_HOME"] = directory.file("config")
        environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        process = try ChildProcess(executable: Self.executable, arguments: [
            "--daemonize=no", "-n", "--exit-idle-time=-1", "--disable-shm=yes", "--use-pid-file=no",
            "--log-target=stderr", "--log-level=info",
            ] + modules.flatMap { ["-L", $0] } + [
            "-L", "module-native-protocol-unix socket=\(socketPath) auth-anonymous=1"],
            stderrPath: logPath, environment: environment)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !FileManager.default.fileExists(atPath: socketPath) && process.isRunning { usleep(20_000) }
        guard FileManager.default.fileExists(atPath: socketPath) else {
            process.kill()
            throw PulseAudioError("pulseaudio did not open \(socketPath):\n\(log())")
        }
    }

    deinit { process.kill() }

    /// Runs `pactl` against this server (load-module, unload-module...); returns its output.
    @discardableResult
    func pactl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = ["--server", "unix:\(socketPath)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw PulseAudioError("pactl \(arguments.joined(separator: " ")): \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's log so far.
    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

struct PulseAudioError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
