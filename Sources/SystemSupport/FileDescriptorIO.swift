#if canImport(Glibc)
import Glibc
#endif

/// Small, thread-safe helpers around raw file descriptors (no buffering, EINTR handled).
public enum FileDescriptorIO {
    /// Writes every byte with `write(2)`, retrying on EINTR and short writes. Returns the errno on failure.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Writes a whole string; see `writeAll(_:_:)`.
    public static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Sets or clears `O_NONBLOCK`.
    public static func setNonBlocking(_ fd: Int32, _ enabled: Bool = true) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return }
        _ = fcntl(fd, F_SETFL, enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Closes `fd`, ignoring EINTR (Linux always releases the descriptor).
    public static func close(_ fd: Int32) {
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Milliseconds until `deadline` (a `CLOCK_MONOTONIC` time in seconds) for `poll(2)`; -1 when `nil`.
    public static func pollTimeout(until deadline: Double?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = max(0, deadline - MonotonicTime.now())
        return Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up))
    }
}
