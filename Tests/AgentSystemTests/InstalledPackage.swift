import Foundation
import TestSupport
@testable import AgentCore

/// The wcs-agent Debian package on this host, driven through dpkg: for PackageInstallTests.
///
/// Runs on the test's own thread (blocking child processes). Installing changes the host, so one
/// test at a time holds an exclusive lock on /run/wcs-agent-package-test.lock while it does.
struct InstalledPackage {
    static let name = "wcs-agent"
    /// Where the package keeps state, at both names (DynamicUser= keeps it under private/).
    static let stateDirectories = ["/var/lib/wcs-agent", "/var/lib/private/wcs-agent"]

    /// The .deb under test: `$WCS_AGENT_DEB` (make test sets it: then it must exist), else the one
    /// `make deb` writes for this version, when it is there.
    static var debPath: String? {
        if let path = ProcessInfo.processInfo.environment["WCS_AGENT_DEB"], !path.isEmpty { return path }
        let arch = (try? run("/usr/bin/dpkg", ["--print-architecture"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "amd64"
        let path = "\(repositoryRoot)/.build-deb/wcs-agent_\(AgentCore.version)_\(arch).deb"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Takes the host-wide lock; released when the returned descriptor is closed.
    static func lock() throws -> Int32 {
        let fd = open("/run/wcs-agent-package-test.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0, flock(fd, LOCK_EX) == 0 else { throw HarnessError("cannot lock /run/wcs-agent-package-test.lock: errno \(errno)") }
        return fd
    }

    /// dpkg with `arguments`; throws with dpkg's output when it fails.
    @discardableResult
    static func dpkg(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/dpkg", arguments, timeout: 120)
        guard result.status == 0 else { throw HarnessError("dpkg \(arguments.joined(separator: " ")) exit \(result.status):\n\(result.output)") }
        return result.output
    }

    /// A field of the installed package (`${Version}`, `${Conffiles}` ...), or nil when not installed.
    static func query(_ format: String) -> String? {
        guard let result = try? run("/usr/bin/dpkg-query", ["-W", "-f=\(format)", name]), result.status == 0 else { return nil }
        return result.output
    }

    static var isInstalled: Bool { query("${db:Status-Abbrev}")?.hasPrefix("ii") == true }

    /// Whether dpkg still knows the package in any state (installed, config-files ...).
    static var isKnown: Bool {
        guard let status = query("${db:Status-Abbrev}") else { return false }
        return !status.hasPrefix("un") && !status.hasPrefix("pn")
    }

    /// A script that runs `binary` in a private mount namespace where an empty directory hides
    /// /opt/swift, so nothing can be loaded from the Swift toolchain.
    static func withoutSwiftToolchain(_ binary: String, in scratch: TemporaryDirectory) throws -> String {
        let empty = scratch.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let script = scratch.file("no-swift-\(URL(fileURLWithPath: binary).lastPathComponent)")
        let text = """
        #!/bin/sh
        # Runs \(binary) with /opt/swift hidden (unshare: a private mount namespace).
        exec /usr/bin/unshare -m --propagation private /bin/sh -c \\
            'mount --bind "$0" /opt/swift && [ -z "$(ls -A /opt/swift)" ] || exit 97; b=$1; shift; exec "$b" "$@"' \\
            '\(empty)' '\(binary)' "$@"

        """
        try text.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return script
    }
}
