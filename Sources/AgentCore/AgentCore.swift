/// AgentCore: the daemon logic of wcs-agent (config, token store, control socket, call policy).
public enum AgentCore {
    /// The agent version reported by `wcs-agent --version` and sent as `clientVersion`.
    public static let version = "0.1.0"
}
