import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Start-up care of the state directory: a directory open to others is tightened to 0700, the
/// temporary files of `AtomicFile.write` that a killed writer left behind (they may hold a copy of
/// the token) are removed, and the calls a killed agent held get their record
/// (`InterruptedCallRecovery`).
///
/// Runs once per process, from the first `TokenStore.load` (the daemon's start), on the caller's
/// thread; it only touches the directory given. A directory that cannot be tightened (owned by
/// someone else) is reported as an error in the log, never kept silently.
public enum StateDirectoryHousekeeping {
    /// Tightens `directory` to `mode` when it is more open, and removes temporary files whose writer
    /// process no longer runs. Returns the names of the removed files. A missing directory is fine.
    @discardableResult
    public static func run(directory: String, mode: mode_t = 0o700) -> [String] {
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return [] }
        let current = info.st_mode & 0o777
        if current & ~mode != 0 {
            let old = String(current, radix: 8)
            if chmod(directory, mode) == 0 {
                Log.warning("storage", "state directory \(directory) had mode \(old); changed it to \(String(mode, radix: 8)) (it holds the auth token)")
            } else {
                Log.error("storage", "state directory \(directory) has mode \(old) and cannot be tightened to \(String(mode, radix: 8)): "
                    + SystemCallError.current("chmod", path: directory).description)
            }
        }
        let removed = removeStaleTemporaries(in: directory)
        InterruptedCallRecovery.run(directory: directory)
        return removed
    }

    /// Removes `AtomicFile` temporaries in `directory` whose writer pid is gone.
    static func removeStaleTemporaries(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var removed: [String] = []
        for name in names {
            guard let writer = AtomicFile.temporaryWriter(name), !isRunning(writer) else { continue }
            let path = PathName.joined(directory, name)
            if unlink(path) == 0 {
                removed.append(name)
            } else {
                Log.warning("storage", SystemCallError.current("remove stale temporary file", path: path).description)
            }
        }
        if !removed.isEmpty {
            Log.notice("storage", "removed \(removed.count) temporary file(s) left in \(directory) by a writer that was killed")
        }
        return removed
    }

    /// True while a process with this pid exists (EPERM: it exists but is not ours).
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
