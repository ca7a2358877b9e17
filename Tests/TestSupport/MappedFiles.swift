import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files a process has mapped, from /proc/PID/maps (the loaded ELF objects among them).
/// Read with read(2) to the end: procfs reports size 0, and a one-shot read of the "file size"
/// can stop after the first page.
public enum MappedFiles {
    /// The whole text of /proc/PID/maps ("self" for this process), read with read(2) to the end.
    public static func mapsText(pid: String = "self") throws -> String {
        let fd = open("/proc/\(pid)/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestSupportError.system("open /proc/\(pid)/maps", errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw TestSupportError.system("read /proc/\(pid)/maps", errno) }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The full paths mapped into `pid` ("self" for this process), each once.
    public static func paths(pid: String = "self") throws -> Set<String> {
        Set(try mapsText(pid: pid).split(separator: "\n").compactMap { line in
            line.firstIndex(of: "/").map { String(line[$0...]) }
        })
    }

    /// The file names (last path component) mapped into `pid`.
    public static func names(pid: String = "self") throws -> Set<String> {
        Set(try paths(pid: pid).map { $0.split(separator: "/").last.map(String.init) ?? $0 })
    }
}
