/// Exit codes of the `wcs-agent` command, part of its interface (scripts and push handlers test them).
public enum ExitCode: Int32, Sendable {
    /// Success; for `reconnect`: the session is back (or was never gone).
    case ok = 0
    /// A failure with a message on stderr.
    case failure = 1
    /// Bad usage: unknown verb or flag, missing argument.
    case usage = 2
    /// No daemon answers on the control socket.
    case daemonNotRunning = 3
    /// `reconnect`: the daemon runs but the session is not back (it keeps retrying).
    case notConnected = 4
    /// The daemon speaks another control protocol version than this CLI (an upgrade without a
    /// restart, or two installed versions): use the matching binary or restart the daemon.
    case protocolMismatch = 5
    /// `run`: the configuration cannot work (bad or unreadable config file, missing CA file,
    /// unreadable password file, invalid values). Restarting will not help: the units say
    /// `RestartPreventExitStatus=2 78` (78 is sysexits' EX_CONFIG).
    case configError = 78
}
