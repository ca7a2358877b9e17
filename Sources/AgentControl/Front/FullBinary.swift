#if canImport(Glibc)
import Glibc
#endif

/// Finding and exec'ing the full `wcs-agent` binary (`wcs-agentd`: the daemon and every verb the
/// lean front does not answer itself). Runs on the front's main thread, just before it would
/// otherwise exit; `execv` replaces the process, so argv, the environment, the pid and the open
/// descriptors all carry over (systemd's `ExecStart=/usr/bin/wcs-agent run` still supervises the
/// daemon's pid).
public enum FullBinary {
    /// The full binary's file name.
    public static let name = "wcs-agentd"
    /// Where the Debian package installs it.
    public static let packageDirectory = "/usr/lib/wcs-agent"

    /// The paths tried in order: next to the front itself (a build tree, or a tarball unpacked
    /// in one directory), then the package's directory. `frontPath` is the front's own resolved
    /// path (/proc/self/exe). Debug builds let `WCS_AGENT_TEST_FULL_BINARY_DIR` stand for the
    /// package's directory, so a test can run the front where no full binary is.
    public static func candidates(frontPath: String?, environment: [String: String]) -> [String] {
        var directories: [String] = []
        if let frontPath, let slash = frontPath.lastIndex(of: "/") {
            directories.append(slash == frontPath.startIndex ? "/" : String(frontPath[..<slash]))
        }
        var packaged = packageDirectory
        #if DEBUG
        if let directory = environment["WCS_AGENT_TEST_FULL_BINARY_DIR"], !directory.isEmpty { packaged = directory }
        #endif
        directories.append(packaged)
        var seen = Set<String>()
        return directories.filter { seen.insert($0).inserted }.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + name }
    }

    /// This process's executable, symlinks resolved (`/proc/self/exe`), or nil.
    public static func ownPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Execs the first of `candidates` that exists with `argv` (program name included) and the
    /// current environment. Returns only on failure: the message to print (exit 1).
    public static func exec(_ argv: [String], candidates: [String]) -> String {
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        fflush(nil)
        for path in candidates {
            execv(path, &cArguments)
            let code = errno
            if code == ENOENT || code == ENOTDIR { continue }
            return "cannot run \(path): \(String(cString: strerror(code))) (errno \(code))"
        }
        return "the full wcs-agent binary (\(name)) is not installed: looked for \(candidates.joined(separator: " and ")); "
            + "`wcs-agent \(argv.dropFirst().first ?? "--help")` needs it (reinstall the wcs-agent package)"
    }
}
