import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Persists the WCS auth tokens in `<directory>/token.json` (mode 0600, directory 0700), one per
/// server: a token is only ever handed out for the server that issued it (`load(server:)`).
///
/// - The file's top level is the most recently saved token, in the one-server format of earlier
///   versions (which read it as before, and whose files load as one record); the tokens of other
///   servers (a failover's backups, see `ServerFailover`) follow under `others`, newest first.
///   Every save rewrites the whole file atomically, so no record is ever half there.
///
/// - A file readable by others is tightened to 0600 on load, with a warning.
/// - A corrupt file makes `load` throw `StorageError` after renaming it to
///   `token.json.corrupt-<UTC time>`, so it is never silently lost.
/// - The token never appears in errors or logs; loaded and saved tokens are registered with
///   `SecretRedactor`.
/// - The first `load` (the daemon's start) runs `StateDirectoryHousekeeping`: the directory is
///   tightened to 0700 and temporary token copies left by a killed writer are removed.
/// Runs on: any thread; the file operations are serialized by one `Mutex` (which also records
/// whether the housekeeping ran), so it is checked Sendable.
public final class TokenStore: Sendable {
    /// The file name inside the directory.
    public static let fileName = "token.json"

    /// The state directory.
    public let directory: String
    /// The token file path.
    public let path: String
    /// Held around every file operation; its value says whether the first `load` did the housekeeping.
    private let fileAccess = Mutex(false)

    /// A store for `directory` (created on first save if missing).
    public init(directory: String) {
        self.directory = directory
        self.path = PathName.joined(directory, Self.fileName)
    }

    /// The most recently saved token (of whichever server), or `nil` when none is saved. Throws
    /// `StorageError` for a corrupt file (moved aside) and `SystemCallError` when the file cannot be read.
    public func load() throws -> StoredToken? {
        try loadAll().first
    }

    /// The token `server` issued, or `nil` when none is kept for it (never another server's).
    public func load(server: String) throws -> StoredToken? {
        try loadAll().first { $0.server == server }
    }

    /// Every kept token, newest first, one per server.
    public func loadAll() throws -> [StoredToken] {
        try fileAccess.withLock { housekeepingDone in
            if !housekeepingDone {
                housekeepingDone = true
                StateDirectoryHousekeeping.run(directory: directory)
            }
            return try loadLocked()
        }
    }

    /// The body of `load`, with `fileAccess` held.
    private func loadLocked() throws -> [StoredToken] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw SystemCallError.current("inspect", path: path)
        }
        if info.st_mode & 0o077 != 0 {
            let old = String(info.st_mode & 0o777, radix: 8)
            if chmod(path, 0o600) == 0 {
                Log.warning("storage", "\(path) had mode \(old); changed it to 600 (it holds a secret)")
            } else {
                Log.warning("storage", "\(path) has mode \(old) and " + SystemCallError.current("chmod", path: path).description)
            }
        }
        let data = try FileReading.readAll(path: path, limit: 1024 * 1024)
        do {
            let file = try Self.decoder().decode(TokenFile.self, from: data)
            let tokens = file.records
            for token in tokens {
                guard !token.token.isEmpty else { throw StorageError(path: path, movedTo: nil, reason: "empty token") }
                SecretRedactor.register(token.token)
            }
            return tokens
        } catch {
            let reason = (error as? StorageError)?.reason ?? Self.describe(error)
            let movedTo = moveAside()
            Log.warning("storage", "corrupt token file \(path) (\(reason)); " + (movedTo.map { "moved to \($0)" } ?? "could not move it aside"))
            throw StorageError(path: path, movedTo: movedTo, reason: reason)
        }
    }

    /// Saves `token` as its server's token (replacing that server's previous one; other servers'
    /// tokens stay), atomically with mode 0600, creating the directory (0700) if needed.
    public func save(_ token: StoredToken) throws {
        SecretRedactor.register(token.token)
        try fileAccess.withLock { _ in
            let others = ((try? loadLocked()) ?? []).filter { $0.server != token.server }
            try writeLocked([token] + others)
        }
    }

    /// Deletes every saved token (no error when there is none).
    public func clear() throws {
        try fileAccess.withLock { _ in try removeLocked() }
    }

    /// Deletes the token of `server` only; the others stay.
    public func clear(server: String) throws {
        try fileAccess.withLock { _ in
            let tokens = (try? loadLocked()) ?? []
            guard tokens.contains(where: { $0.server == server }) else { return }
            let rest = tokens.filter { $0.server != server }
            if rest.isEmpty { try removeLocked() } else { try writeLocked(rest) }
        }
    }

    /// Writes `tokens` (newest first, at least one), with `fileAccess` held.
    private func writeLocked(_ tokens: [StoredToken]) throws {
        let data = try Self.encoder().encode(TokenFile(tokens))
        try AtomicFile.ensureDirectory(directory, mode: 0o700)
        try AtomicFile.write(data + Data("\n".utf8), to: path, mode: 0o600)
    }

    private func removeLocked() throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemCallError.current("remove", path: path) }
    }

    /// Renames the corrupt file to `token.json.corrupt-<time>`; returns the new path or `nil`.
    private func moveAside() -> String? {
        let stamp = LogLineFormatter.timestamp(Date().timeIntervalSince1970)
            .replacing(":", with: "").replacing("-", with: "")
        var candidate = "\(path).corrupt-\(stamp)"
        var counter = 1
        while access(candidate, F_OK) == 0 {
            candidate = "\(path).corrupt-\(stamp)-\(counter)"
            counter += 1
        }
        return rename(path, candidate) == 0 ? candidate : nil
    }

    /// A structural description of a decoding failure, without any of the file's values.
    static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable content" }
        func at(_ path: [CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = at(context.codingPath)
            return "missing field \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field \"\(at(context.codingPath))\" has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "field \"\(at(context.codingPath))\" is invalid"
        @unknown default:
            return "unreadable content"
        }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Time.string(date))
        }
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Time.date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "invalid date")
            }
            return date
        }
        return decoder
    }
}
