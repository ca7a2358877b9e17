import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Real ways to make file writes fail, for durability tests.
///
/// Runs on: the calling test's thread. Why it looks like this: a full disk is what users meet, so
/// root gets a real one (a tiny tmpfs, mounted per test); an ordinary user cannot mount, so there
/// writes past a size fail through `RLIMIT_FSIZE` instead (EFBIG, with SIGXFSZ ignored), which
/// the writing code meets at the same `write(2)`.
public enum FailingWrites {
    /// Whether this process can mount a tmpfs (root with CAP_SYS_ADMIN): probed once, for real.
    public static let canMountTmpfs: Bool = {
        let scratch = ScratchDirectory()
        guard geteuid() == 0, let probe = try? TemporaryMount(at: scratch.path, size: 16 * 1024) else { return false }
        probe.unmount()
        return true
    }()

    /// Runs `body` with writes failing in `directory`: a tmpfs mounted on `directory` and filled
    /// up when possible, else a file-size limit of `budget` bytes for this process (so a file may
    /// grow to `budget` bytes, not beyond). `prepare` runs first, with writes still working.
    public static func withFullDisk<T>(at directory: String, budget: Int, prepare: () throws -> Void,
                                _ body: () throws -> T) throws -> T {
        if canMountTmpfs {
            let mount = try TemporaryMount(at: directory, size: 64 * 1024)
            defer { mount.unmount() }
            try prepare()
            try fill(directory)
            return try body()
        }
        try prepare()
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        var limited = old
        limited.rlim_cur = rlim_t(budget)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited)
        defer {
            setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
            signal(SIGXFSZ, previousHandler)
        }
        return try body()
    }

    /// Fills the file system of `directory` with a filler file until a write fails with ENOSPC.
    private static func fill(_ directory: String) throws {
        let fd = open(directory + "/.filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        while write(fd, chunk, chunk.count) > 0 {}
        guard errno == ENOSPC else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }
}

/// A tmpfs of `size` bytes mounted on a directory; `unmount()` detaches it (lazily).
public struct TemporaryMount {
    public let path: String

    /// Mounts on `path`, an existing directory.
    public init(at path: String, size: Int) throws {
        let result = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
        guard result.status == 0 else { throw POSIXError(.EPERM) }
        self.path = path
    }

    public func unmount() {
        _ = try? run("/bin/umount", ["-l", path])
    }
}
