import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Replaces a file's content atomically: readers and crashes see either the old or the new file.
public enum AtomicFile {
    /// Writes `data` to `path` with permissions `mode`.
    ///
    /// A temporary file is created next to `path` with `O_CREAT|O_EXCL` and `mode` (so it is never
    /// more open than `mode`), filled, `fsync`ed, renamed over `path`, and the directory is
    /// `fsync`ed. On any failure (ENOSPC, EACCES, ...) the temporary file is removed and an existing
    /// file at `path` is left untouched. Throws `SystemCallError` naming the path and errno.
    public static func write(_ data: Data, to path: String, mode: mode_t) throws {
        let directory = Self.directory(of: path)
        let base = PathName.lastComponent(path)
        let temporary = "\(directory)/\(temporaryName(for: base))"

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemCallError.current("create temporary file for", path: path) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { FileDescriptorIO.close(fd) }
            // The umask may have narrowed `mode`; set it exactly (never wider than asked).
            guard fchmod(fd, mode) == 0 else { throw SystemCallError.current("set permissions of", path: path) }
            let failure = data.withUnsafeBytes { FileDescriptorIO.writeAll(fd, $0) }
            if let failure { throw SystemCallError("write", path: path, code: failure) }
            guard fsync(fd) == 0 else { throw SystemCallError.current("sync", path: path) }
        }
        guard rename(temporary, path) == 0 else { throw SystemCallError.current("replace", path: path) }
        renamed = true
        syncDirectory(directory)
    }

    /// The name of a new temporary file for `base`: `.<base>.tmp-<our pid>-<random hex>`.
    static func temporaryName(for base: String) -> String {
        ".\(base).tmp-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    }

    /// The pid of the process that created a file named by `temporaryName`, or nil for any other name.
    static func temporaryWriter(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), let marker = name.ranges(of: ".tmp-").last else { return nil }
        let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, !parts[1].isEmpty,
              parts[1].allSatisfy(\.isHexDigit) else { return nil }
        return pid
    }

    /// The directory part of `path` (`.` for a bare file name).
    static func directory(of path: String) -> String {
        let directory = PathName.parent(path)
        return directory.isEmpty ? "." : directory
    }

    /// Makes a rename durable. Failures are logged, not thrown: the new content is already in place.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            Log.warning("storage", SystemCallError.current("open directory", path: directory).description)
            return
        }
        defer { FileDescriptorIO.close(fd) }
        if fsync(fd) != 0 && errno != EINVAL {
            Log.warning("storage", SystemCallError.current("sync directory", path: directory).description)
        }
    }

    /// Creates `path` (and missing parents) with `mode` when it does not exist. An existing
    /// directory is left as it is. Throws `SystemCallError`.
    public static func ensureDirectory(_ path: String, mode: mode_t) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SystemCallError("use directory", path: path, code: ENOTDIR) }
            return
        }
        let parent = directory(of: path)
        if parent != path && parent != "." && parent != "/" { try ensureDirectory(parent, mode: 0o755) }
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw SystemCallError.current("create directory", path: path) }
        _ = chmod(path, mode)
    }
}
