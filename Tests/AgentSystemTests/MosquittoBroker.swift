import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto (Debian's) on 127.0.0.1 for the MQTT intake tests: a plain listener for
/// anonymous publishers and, with `tls`, a TLS listener (the shared test CA's server certificate)
/// that wants a user name and password. Persistence on, so a restart keeps the persistent sessions
/// and the messages queued for them. Logs everything (`log_type all`) to one file across restarts.
final class MosquittoBroker: @unchecked Sendable {
    let directory: String
    let port: Int
    let tlsPort: Int?
    let logPath: String
    private let configPath: String
    private(set) var process: ChildProcess?
    private var starts = 0

    /// `users`: name → password of the TLS listener (hashed with mosquitto_passwd, never in argv).
    init(directory: String, tls: TestCertificates? = nil, users: [String: String] = [:]) throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"), "apt-get install mosquitto (make deps)")
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try PushPaths.freePort()
        tlsPort = tls == nil ? nil : try PushPaths.freePort()
        logPath = directory + "/mosquitto.log"
        configPath = directory + "/mosquitto.conf"
        // As root, mosquitto switches to the user "mosquitto" unless told to stay who we are.
        let user = getpwuid(getuid()).flatMap { String(validatingCString: $0.pointee.pw_name) } ?? "root"
        var conf = """
        user \(user)
        per_listener_settings true
        persistence true
        persistence_location \(directory)/
        autosave_interval 1
        log_dest file \(logPath)
        log_type all
        listener \(port) 127.0.0.1
        allow_anonymous true

        """
        if let tls, let tlsPort {
            let passwords = directory + "/passwords"
            try users.map { "\($0.key):\($0.value)\n" }.joined().write(toFile: passwords, atomically: true, encoding: .utf8)
            let hashed = try run("/usr/bin/mosquitto_passwd", ["-U", passwords])
            #expect(hashed.status == 0, "\(hashed.output)")
            conf += """
            listener \(tlsPort) 127.0.0.1
            cafile \(tls.caFile)
            certfile \(tls.serverCertificate)
            keyfile \(tls.serverKey)
            allow_anonymous false
            password_file \(passwords)

            """
        }
        try conf.write(toFile: configPath, atomically: true, encoding: .utf8)
        try start()
    }

    deinit { process?.kill() }

    /// Starts mosquitto and waits until it listens.
    func start() throws {
        starts += 1
        let marker = "Opening ipv4 listen socket on port \(port)"
        let before = occurrences(marker)
        process = try ChildProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", configPath],
                                   stderrPath: directory + "/mosquitto-\(starts).err")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if occurrences(marker) > before { return }
            usleep(20_000)
        }
        throw HarnessError("mosquitto did not start: \(contents(directory + "/mosquitto-\(starts).err") ?? "")")
    }

    /// Stops it as an operator would (SIGTERM: it saves the sessions and queued messages).
    func stop() {
        process?.signal(SIGTERM)
        _ = process?.waitForExit(timeout: 10)
        process = nil
    }

    func restart() throws {
        stop()
        try start()
    }

    /// The log so far (every run).
    func log() -> String { contents(logPath) ?? "" }

    private func occurrences(_ text: String) -> Int { log().components(separatedBy: text).count - 1 }

    /// `mosquitto_pub` on the plain listener: publishes each line of `lines` as one QoS 1 message on
    /// `topic`; true when the broker acknowledged every one (exit 0).
    func publish(lines: [String], topic: String, file: String) throws -> Bool {
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try run("/bin/sh", ["-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(port) -q 1 -i wcs-test-publisher -t '\(topic)' -l < '\(file)'"],
                             timeout: 30)
        return result.status == 0
    }

    /// The retained message of `topic` now ("" when none), read on the plain listener.
    func retained(_ topic: String) throws -> String {
        let result = try run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "2", "--retained-only"],
                             timeout: 10)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
