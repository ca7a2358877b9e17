import FoundationEssentials

/// Stamping an event with the publishing time: in AgentCore because the ISO 8601 clock
/// (`AgentClock`, `ISO8601Time`) is the daemon's; the event types are AgentControl's,
/// so the lean front decodes them too. Runs on the publishing actor (`Agent`, `CallManager`).
extension TimedAgentEvent {
    /// Stamps `event` with `date` (now by default).
    public init(_ event: AgentEvent, at date: Date = Date()) {
        self.init(event, time: AgentClock.iso(date))
    }
}
