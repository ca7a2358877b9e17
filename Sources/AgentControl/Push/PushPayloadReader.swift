import SystemSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the raw push for `wcs-agent reconnect --payload FILE|-` (`-` is standard input).
public enum PushPayloadReader {
    /// Reads and parses the payload. Throws `PushPayloadError` with a message naming the source.
    public static func read(_ source: String) throws(PushPayloadError) -> PushPayload {
        let path = source == "-" ? "/dev/stdin" : source
        let name = source == "-" ? "standard input" : source
        let data: Data
        do {
            data = try FileReading.readAll(path: path, limit: PushPayload.maximumSize)
        } catch {
            if error.code == EFBIG {
                throw PushPayloadError("push payload from \(name) is larger than \(PushPayload.maximumSize) bytes")
            }
            throw PushPayloadError("cannot read the push payload from \(name): \(error.reason)")
        }
        return try PushPayload(data: data)
    }
}
