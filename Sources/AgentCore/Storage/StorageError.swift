/// A stored file that exists but cannot be used. Messages never include the file's content.
public struct StorageError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The unusable file.
    public let path: String
    /// Where the file was moved so it is not lost, if moving worked.
    public let movedTo: String?
    /// Why it is unusable (structure only, e.g. `missing field "token"`).
    public let reason: String

    /// Creates an error.
    public init(path: String, movedTo: String?, reason: String) {
        self.path = path
        self.movedTo = movedTo
        self.reason = reason
    }

    public var description: String {
        let kept = movedTo.map { "; it was moved to \($0)" } ?? ""
        return "corrupt file \(path): \(reason)\(kept)"
    }
}
