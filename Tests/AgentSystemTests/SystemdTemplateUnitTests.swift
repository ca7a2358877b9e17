import Foundation
import Testing
import TestSupport

/// examples/systemd/wcs-agent@.service: verifies, keeps every setting of wcs-agent.service, and
/// differs from it only in the per-line paths.
@Suite struct SystemdTemplateUnitTests {
    static let templatePath = repositoryRoot + "/examples/systemd/wcs-agent@.service"

    static func settings(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && $0.contains("=") }
    }

    @Test func theTemplateVerifiesAsAnInstance() throws {
        let scratch = try TemporaryDirectory(prefix: "wcs-unit")
        let unit = try String(contentsOfFile: Self.templatePath, encoding: .utf8)
            .replacingOccurrences(of: "=/usr/local/bin/wcs-agent ", with: "=\(AgentHarness.binary) ")
        for name in ["wcs-agent@.service", "wcs-agent@door.service"] {
            let path = scratch.file(name)
            try unit.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try runTool(SystemdUnitFileTests.analyze, ["verify", path], in: scratch)
            let complaints = result.errors.split(separator: "\n").filter { $0.contains("wcs-agent@") }
            #expect(result.code == 0 && complaints.isEmpty, "verify \(name):\n\(result.errors)")
        }
    }

    @Test func onlyThePerLinePathsDiffer() throws {
        let plain = try Self.settings(SystemdUnitFileTests.unitPath)
        let template = try Self.settings(Self.templatePath)
        let perLine = ["Description=wcs-agent line %i: WCS signaling and SIP call agent",
                       "ExecStart=/usr/local/bin/wcs-agent run --config /etc/wcs-agent/%i.conf",
                       "ExecReload=/usr/local/bin/wcs-agent reload --config /etc/wcs-agent/%i.conf",
                       "StateDirectory=wcs-agent/%i", "RuntimeDirectory=wcs-agent/%i",
                       "LoadCredential=sip-password:/etc/wcs-agent/%i.sip-password", "Environment=WCS_AGENT_LINE=%i"]
        #expect(template.filter { !perLine.contains($0) } == plain.filter { line in
            !["Description=", "ExecStart=", "ExecReload=", "StateDirectory=", "RuntimeDirectory=", "LoadCredential=", "Environment=WCS_AGENT_LINE="].contains { line.hasPrefix($0) }
        })
        for line in perLine { #expect(template.contains(line), "missing \(line)") }
    }
}
