import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads whole files with plain system calls so failures carry the real `errno`.
public enum FileReading {
    /// The largest file `readAll` accepts (config files, tokens and secrets are tiny).
    public static let defaultLimit = 16 * 1024 * 1024

    /// Reads the file at `path`. Throws `SystemCallError` (e.g. ENOENT, EACCES, EISDIR, EFBIG).
    public static func readAll(path: String, limit: Int = defaultLimit) throws(SystemCallError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError.current("open", path: path) }
        defer { FileDescriptorIO.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemCallError.current("stat", path: path) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw SystemCallError("read", path: path, code: EISDIR) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemCallError.current("read", path: path)
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
            if data.count > limit { throw SystemCallError("read", path: path, code: EFBIG) }
        }
        return data
    }
}
