import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temporary directory, deleted with its contents on deinit.
public final class TemporaryDirectory: Sendable {
    /// Absolute path of the directory.
    public let path: String

    /// Creates the directory (`mkdtemp`); the name starts with `prefix`.
    public init(prefix: String = "wcs-test") throws {
        var template = Array((NSTemporaryDirectory() + "/\(prefix).XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard created != nil else {
            throw TestSupportError.system("mkdtemp", errno)
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Path of an entry `name` inside the directory (not created).
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
