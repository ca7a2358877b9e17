import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// `command:` audio children get a clean environment, like hooks: the real daemon runs with
/// systemd's handles and WCS_* variables in its environment, answers a call whose source and sink
/// are commands that dump their environment, and neither dump may show them.
@Suite(.serialized) struct AudioCommandEnvironmentTests {
    @Test func audioCommandsDoNotInheritTheAgentsEnvironment() async throws {
        let dumps = try await onThread { () throws -> (source: String?, sink: String?) in
            let h = try AgentHarness(media: .webrtc)
            let sourceDump = h.scratch.file("source.env"), sinkDump = h.scratch.file("sink.env")
            let credentials = h.scratch.file("credentials")
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            try h.start(extra: ["--answer", "auto", "--media-address", "127.0.0.1",
                                "--audio-source", "command:env > '\(sourceDump)'; exec sleep 30",
                                "--audio-sink", "command:env > '\(sinkDump)'; exec cat > /dev/null"],
                        environment: ["NOTIFY_SOCKET": "@wcs-agent-test-no-such-socket", "CREDENTIALS_DIRECTORY": credentials,
                                      "WCS_LEAK_PROBE": "leaked", "LANG": "C.UTF-8"])
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440")
            try h.waitFor("both audio commands ran", timeout: 25) {
                FileManager.default.fileExists(atPath: sourceDump) && FileManager.default.fileExists(atPath: sinkDump)
            }
            Thread.sleep(forTimeInterval: 0.3)
            try? h.emulator.control.hangup(callId: ring.callId)
            return (try? String(contentsOfFile: sourceDump, encoding: .utf8), try? String(contentsOfFile: sinkDump, encoding: .utf8))
        }
        for (name, dump) in [("source", dumps.source), ("sink", dumps.sink)] {
            let names = Set((dump ?? "").split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
            #expect(names.contains("PATH") && names.contains("LANG"), "\(name): \(names.sorted())")
            #expect(names.isDisjoint(with: ["NOTIFY_SOCKET", "CREDENTIALS_DIRECTORY", "WCS_LEAK_PROBE"]), "\(name): \(names.sorted())")
            #expect(names.subtracting(["PATH", "HOME", "LANG", "LC_ALL", "TZ", "PWD", "SHLVL", "_"]).isEmpty,
                    "\(name) sees more than PATH/HOME/LANG/LC_ALL/TZ (and what sh adds): \(names.sorted())")
        }
    }
}
