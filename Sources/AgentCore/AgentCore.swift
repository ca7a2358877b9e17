// AgentCore's clients (the daemon binary, tests) see AgentControl's types (control protocol, verb
// table, config file, exit codes) through this import, as before they moved there.
@_exported import AgentControl

/// AgentCore: the daemon logic of wcs-agent (config, token store, control socket, call policy).
public enum AgentCore {
    /// The agent version reported by `wcs-agent --version` and sent as `clientVersion`
    /// (defined in AgentControl's `AgentVersion`, which the lean front shares).
    public static let version = AgentVersion.version
}
