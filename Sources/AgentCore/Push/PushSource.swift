/// Where a push came from: the `source` of its `push` event and of `wcs_agent_pushes_total`.
public enum PushSource: String, Sendable, CaseIterable {
    /// `wcs-agent reconnect --payload` (the control socket).
    case reconnect
    /// The webhook (`[push] listen`).
    case webhook
    /// The native MQTT intake (`[push] mqtt`).
    case mqtt

    /// The source named in the push ledger, else `reconnect`.
    init(ledgerName: String) { self = PushSource(rawValue: ledgerName) ?? .reconnect }
}
