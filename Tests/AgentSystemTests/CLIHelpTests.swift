import TestSupport
@testable import AgentCore
import Testing

/// The built binary's help comes from the verb table (ControlVerbTableTests checks the table itself).
@Suite struct CLIHelpTests {
    @Test func helpComesFromTheTable() throws {
        let overview = try run(AgentHarness.binary, ["--help"])
        #expect(overview.status == 0)
        #expect(overview.output.contains("  reload [--json]               re-read the config file and start flags (as SIGHUP)"))
        let reload = try run(AgentHarness.binary, ["reload", "--help"])
        #expect(reload.status == 0)
        #expect(reload.output.hasPrefix("usage: wcs-agent reload [--json] [--socket PATH | --line NAME | --config FILE] [--timeout S]\n\nre-read"))
        let bad = try run(AgentHarness.binary, ["reload", "--payload", "x"])
        #expect(bad.status == ExitCode.usage.rawValue && bad.output.contains("wcs-agent reload: unknown option --payload"))
        let version = try run(AgentHarness.binary, ["--version"])
        #expect(version.output.contains("(control protocol \(ControlProtocolVersion.current))"))
    }
}
