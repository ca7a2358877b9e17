/// The program version, here so the lean `wcs-agent` front and the daemon (`AgentCore.version`)
/// report the same one. The Makefile and packaging/deb/build-deb.sh read it from this line.
public enum AgentVersion {
    /// The agent version reported by `wcs-agent --version`, sent in `hello` and as `clientVersion`.
    public static let version = "0.1.0"
}
