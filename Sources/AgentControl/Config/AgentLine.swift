import SystemSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One line: a wcs-agent instance on a host with several, as systemd's `wcs-agent@NAME.service`
/// runs it. This type says where a line's files are, for the client verbs' `--line NAME` and
/// `$WCS_AGENT_LINE`, and finds the lines running on the host for `status --all`.
///
/// A plain value used on whatever thread runs a CLI verb. The paths match the template unit:
/// config `/etc/wcs-agent/NAME.conf`, state `/var/lib/wcs-agent/NAME`
/// (`StateDirectory=wcs-agent/%i`), socket `/run/wcs-agent/NAME/control.sock`
/// (`RuntimeDirectory=wcs-agent/%i`). `$WCS_AGENT_RUNTIME_ROOT` replaces /run/wcs-agent, for
/// lines run outside systemd (each with `--socket ROOT/NAME/control.sock`).
public struct AgentLine: Sendable, Equatable {
    /// Directory of the lines' config files.
    public static let configRoot = "/etc/wcs-agent"
    /// Directory of the lines' state directories.
    public static let stateRoot = "/var/lib/wcs-agent"
    /// Directory of the lines' runtime directories, unless `$WCS_AGENT_RUNTIME_ROOT` says otherwise.
    public static let defaultRuntimeRoot = "/run/wcs-agent"

    /// The line's name: the systemd instance name (`%i`).
    public let name: String

    /// Validates `name`: 1-64 characters from letters, digits, `-`, `_`, `.` and `@`; not `.` or `..`.
    public init(_ name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains), name != ".", name != ".." else {
            throw UsageError("bad line name \"\(name)\": use 1 to 64 letters, digits, -, _, . or @")
        }
        self.name = name
    }

    /// `/etc/wcs-agent/NAME.conf`.
    public var configPath: String { "\(Self.configRoot)/\(name).conf" }
    /// `/var/lib/wcs-agent/NAME`.
    public var stateDirectory: String { "\(Self.stateRoot)/\(name)" }
    /// `ROOT/NAME/control.sock`.
    public func socketPath(environment: [String: String] = ProcessEnvironment.current) -> String {
        "\(Self.runtimeRoot(environment))/\(name)/control.sock"
    }

    /// The line a client verb was pointed at: `--line NAME`, else `$WCS_AGENT_LINE` when
    /// `useEnvironment` (callers pass false when `--socket` or `--config` was given).
    public static func selected(_ parsed: ParsedArguments, useEnvironment: Bool,
                                environment: [String: String] = ProcessEnvironment.current) throws -> AgentLine? {
        if let name = parsed.value("--line") { return try AgentLine(name) }
        if useEnvironment, let name = environment["WCS_AGENT_LINE"], !name.isEmpty { return try AgentLine(name) }
        return nil
    }

    /// The control socket of this line: its config file's `[agent] socket` when the file sets
    /// one, else `ROOT/NAME/control.sock`.
    public func controlSocket(environment: [String: String] = ProcessEnvironment.current) throws -> String {
        if FileManager.default.isReadableFile(atPath: configPath),
           let path = try ConfigFile.load(path: configPath).section("agent").path("socket") {
            return path
        }
        return socketPath(environment: environment)
    }

    /// `$WCS_AGENT_RUNTIME_ROOT`, else /run/wcs-agent.
    public static func runtimeRoot(_ environment: [String: String]) -> String {
        environment["WCS_AGENT_RUNTIME_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultRuntimeRoot
    }

    /// The control sockets under the runtime root, sorted by line: `(nil, ROOT/control.sock)` for
    /// the plain `wcs-agent.service`, `(NAME, ROOT/NAME/control.sock)` for each line.
    public static func running(environment: [String: String] = ProcessEnvironment.current) -> [(line: String?, socket: String)] {
        let root = runtimeRoot(environment)
        var found: [(line: String?, socket: String)] = []
        if Self.isSocket("\(root)/control.sock") { found.append((nil, "\(root)/control.sock")) }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        for name in names where Self.isSocket("\(root)/\(name)/control.sock") {
            found.append((name, "\(root)/\(name)/control.sock"))
        }
        return found
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
