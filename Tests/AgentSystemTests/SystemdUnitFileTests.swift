import Foundation
import Testing
import TestSupport

/// examples/systemd/wcs-agent.service passes `systemd-analyze verify` and its security score is
/// the one README.md states.
@Suite struct SystemdUnitFileTests {
    static let unitPath = repositoryRoot + "/examples/systemd/wcs-agent.service"
    static let shippedExecStart = "ExecStart=/usr/local/bin/wcs-agent run --config /etc/wcs-agent/wcs-agent.conf"
    static let shippedExecReload = "ExecReload=/usr/local/bin/wcs-agent reload --config /etc/wcs-agent/wcs-agent.conf"
    static let analyze = "/usr/bin/systemd-analyze"

    /// The unit with ExecStart pointing at the built binary (verify needs an existing executable).
    static func unitForVerification(in scratch: TemporaryDirectory) throws -> String {
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        guard unit.contains(shippedExecStart) else { throw HarnessError("the unit no longer says \(shippedExecStart)") }
        guard unit.contains(shippedExecReload) else { throw HarnessError("the unit no longer says \(shippedExecReload)") }
        let rewritten = unit.replacingOccurrences(of: "ExecStart=/usr/local/bin/wcs-agent ",
                                                  with: "ExecStart=\(AgentHarness.binary) ")
            .replacingOccurrences(of: "ExecReload=/usr/local/bin/wcs-agent ", with: "ExecReload=\(AgentHarness.binary) ")
        let path = scratch.file("wcs-agent.service")
        try rewritten.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theUnitVerifies() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.analyze), "systemd-analyze is missing: run `make deps` (installs systemd)")
        let scratch = try TemporaryDirectory(prefix: "wcs-unit")
        let unit = try Self.unitForVerification(in: scratch)
        let result = try runTool(Self.analyze, ["verify", unit], in: scratch)
        #expect(result.code == 0, "systemd-analyze verify failed:\n\(result.errors)")
        let complaints = result.errors.split(separator: "\n").filter { $0.contains("wcs-agent.service") }
        #expect(complaints.isEmpty, "verify warnings:\n\(complaints.joined(separator: "\n"))")
    }

    @Test func theUnitHasTheRequiredSettings() throws {
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        for setting in ["Type=notify", Self.shippedExecStart, Self.shippedExecReload, "DynamicUser=yes",
                        "StateDirectory=wcs-agent", "RuntimeDirectory=wcs-agent",
                        "LoadCredential=sip-password:/etc/wcs-agent/sip-password", "Restart=on-failure",
                        "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes",
                        "NoNewPrivileges=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
                        "SystemCallFilter=@system-service", "CapabilityBoundingSet=", "LockPersonality=yes",
                        "MemoryDenyWriteExecute=yes", "RestrictRealtime=yes", "RestrictNamespaces=yes",
                        "ProtectKernelTunables=yes", "ProtectKernelModules=yes", "ProtectKernelLogs=yes",
                        "ProtectControlGroups=yes", "ProtectClock=yes", "ProtectHostname=yes", "UMask=0077"] {
            #expect(lines.contains(setting), "missing \(setting)")
        }
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
    }

    @Test func theSecurityScoreIsLowAndDocumented() throws {
        let scratch = try TemporaryDirectory(prefix: "wcs-unit")
        let unit = try Self.unitForVerification(in: scratch)
        let result = try runTool(Self.analyze, ["security", "--offline=true", "--no-pager", unit], in: scratch)
        let all = result.output + "\n" + result.errors
        let marker = "Overall exposure level for wcs-agent.service: "
        let line = try #require(all.split(separator: "\n").first { $0.contains(marker) }, "no score in:\n\(all)")
        let score = try #require(Double(line.components(separatedBy: marker)[1].split(separator: " ")[0]))
        #expect(score <= 2.0, "exposure \(score): the unit lost some hardening")
        let readme = try String(contentsOfFile: repositoryRoot + "/examples/systemd/README.md", encoding: .utf8)
        #expect(readme.contains("exposure level \(String(format: "%.1f", score))"), "README.md must state the score \(score)")
    }
}
