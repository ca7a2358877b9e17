import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// The lean `wcs-agent` front with the real binaries: it answers client verbs itself (with no full
/// binary anywhere), execs the full binary for the rest with argv and environment intact, and says
/// clearly when the full binary is missing. (Every other CLI test also runs through the front.)
@Suite(.serialized) struct LeanFrontTests {
    /// A copy of the front alone in a directory of its own; the package directory points nowhere.
    struct LoneFront {
        let scratch: TemporaryDirectory
        let path: String

        init() throws {
            scratch = try TemporaryDirectory(prefix: "wcs-front")
            path = scratch.file("wcs-agent")
            try FileManager.default.copyItem(atPath: AgentHarness.binary, toPath: path)
        }

        /// The environment with the package directory moved to an empty place (debug builds honour it).
        var environment: [String: String] {
            var env = ProcessInfo.processInfo.environment
            env["WCS_AGENT_TEST_FULL_BINARY_DIR"] = scratch.file("no-full-binary-here")
            return env
        }

        func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (code: Int32, output: String, errors: String) {
            let errors = scratch.file("stderr-\(UUID().uuidString)")
            let child = try ChildProcess(executable: path, arguments: arguments, stderrPath: errors, environment: environment ?? self.environment)
            let output = child.readToEnd(timeout: 30)
            guard let code = child.waitForExit(timeout: 30) else {
                child.kill()
                throw HarnessError("wcs-agent \(arguments) did not exit")
            }
            return (code, output, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        }
    }

    @Test func clientVerbsWorkWithoutTheFullBinary() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let front = try LoneFront()
            let status = try front.run(["status", "--json", "--socket", h.socketPath])
            #expect(status.code == 0, "\(status)")
            #expect(try JSONValue.parse(status.output)["state"] == "online")
            let reconnect = try front.run(["reconnect", "--socket", h.socketPath])
            #expect(reconnect.code == 0 && reconnect.output.hasPrefix("online (already online)"), "\(reconnect)")
            let calls = try front.run(["calls", "--socket", h.socketPath])
            #expect(calls.code == 0 && calls.output == "no calls", "\(calls)")
            let hangup = try front.run(["hangup", "--socket", h.socketPath])
            #expect(hangup.code == 1 && hangup.errors.contains("wcs-agent hangup: ") && hangup.errors.contains("[call_error]"), "\(hangup)")
            let metrics = try front.run(["metrics", "--socket", h.socketPath])
            #expect(metrics.code == 0 && metrics.output.contains("wcs_agent_info{"), "\(metrics)")
            let version = try front.run(["--version"])
            #expect(version.code == 0 && version.output == FrontRoute.versionLine)
            // The same answers as the full binary gives.
            let full = try run(AgentHarness.fullBinary, ["status", "--json", "--socket", h.socketPath])
            #expect(full.status == 0)
            #expect(try JSONValue.parse(full.output).objectValue.map { Set($0.keys) }
                    == JSONValue.parse(status.output).objectValue.map { Set($0.keys) })
            let usage = try front.run(["reconnect", "--payload"])
            #expect(usage.code == ExitCode.usage.rawValue && usage.errors.contains("wcs-agent reconnect: --payload needs a value"), "\(usage)")
            // events, human lines (AgentEvent decoded in the front): `sleep` shows as a state line.
            let events = try ChildProcess(executable: front.path, arguments: ["events", "--socket", h.socketPath],
                                          stderrPath: front.scratch.file("events.err"), environment: front.environment)
            defer { events.kill() }
            usleep(300_000)
            #expect(try front.run(["sleep", "--socket", h.socketPath]).code == 0)
            var seen: [String] = []
            while let line = try? events.readLine(timeout: 10) {
                seen.append(line)
                if line.contains(" state asleep") { break }
            }
            #expect(seen.last?.contains(" state asleep") == true, "\(seen)")
            #expect(try front.run(["reconnect", "--socket", h.socketPath]).code == 0)
            let gone = try front.run(["status", "--socket", h.scratch.file("nobody.sock")])
            #expect(gone.code == ExitCode.daemonNotRunning.rawValue && gone.errors.contains("wcs-agent is not running"), "\(gone)")
            #expect(h.stop() == 0)
        }
    }

    @Test func aVerbThatNeedsTheFullBinarySaysItIsMissing() throws {
        let front = try LoneFront()
        for arguments in [["run", "--server", "ws://127.0.0.1:9"], ["history"], ["--help"], ["status", "--help"], ["events", "--help"]] {
            let result = try front.run(arguments)
            #expect(result.code == ExitCode.failure.rawValue, "\(arguments): \(result)")
            let directory = URL(fileURLWithPath: front.scratch.path).lastPathComponent
            #expect(result.errors.hasPrefix("wcs-agent: the full wcs-agent binary (wcs-agentd) is not installed: looked for /"), "\(result.errors)")
            #expect(result.errors.contains("/\(directory)/wcs-agentd and /") && result.errors.contains("/no-full-binary-here/wcs-agentd;"),
                    "\(arguments): \(result.errors)")
            #expect(result.errors.contains("`wcs-agent \(arguments[0])` needs it"), "\(result.errors)")
        }
    }

    @Test func execdVerbsGetArgvAndEnvironmentUnchanged() throws {
        let front = try LoneFront()
        // A stand-in full binary next to the front that prints what it was given.
        let stand = front.scratch.file("wcs-agentd")
        try "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\nprintf 'mark=[%s]\\n' \"$LEAN_FRONT_MARK\"\nexit 7\n"
            .write(toFile: stand, atomically: true, encoding: .utf8)
        chmod(stand, 0o755)
        var env = front.environment
        env["LEAN_FRONT_MARK"] = "a b\tc"
        let result = try front.run(["doctor", "--line", "x y", "", "--json", "ü"], environment: env)
        #expect(result.code == 7, "\(result)")
        #expect(result.output == "[doctor]\n[--line]\n[x y]\n[]\n[--json]\n[ü]\nmark=[a b\tc]", "\(result.output)")
        // The full binary's --help too (the front never prints help itself).
        let help = try front.run(["reconnect", "--help"], environment: env)
        #expect(help.output == "[reconnect]\n[--help]\nmark=[a b\tc]")
    }

    /// The front loads the C runtime only (the Swift and C++ runtimes are linked in), and its
    /// modules import nothing heavier than Glibc and FoundationEssentials: a Foundation, GLib or
    /// OpenSSL import would undo the split.
    @Test func theFrontStaysLean() throws {
        let ldd = try run("/usr/bin/ldd", [AgentHarness.binary])
        #expect(ldd.status == 0)
        let libraries = ldd.output.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        let allowed: Set<String> = ["linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1",
                                    "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "linux-gate.so.1"]
        #expect(!libraries.isEmpty && libraries.allSatisfy(allowed.contains), "the front loads \(libraries)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var imports: Set<String> = []
        for directory in ["Sources/wcs-agent", "Sources/AgentControl", "Sources/WCSJSON", "Sources/SystemSupport"] {
            let base = root.appendingPathComponent(directory)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            #expect(!files.isEmpty, "\(directory)")
            for file in files {
                let text = try String(contentsOfFile: base.appendingPathComponent(file).path, encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@_exported import ") {
                    imports.insert(String(line.split(separator: " ").last ?? ""))
                }
            }
        }
        // Synchronization (SystemSupport's Log) is linked in statically, as the Swift runtime.
        #expect(imports.isSubset(of: ["FoundationEssentials", "Glibc", "Synchronization", "WCSJSON", "SystemSupport", "AgentControl"]),
                "\(imports.sorted())")
    }

    @Test func theRealFullBinaryAnswersWhatTheFrontHandsOver() throws {
        let overview = try run(AgentHarness.binary, ["--help"])
        #expect(overview.status == 0 && overview.output.contains("  run [--config FILE] [flags]"), "\(overview.output)")
        let history = try run(AgentHarness.binary, ["history", "--state-dir", try TemporaryDirectory(prefix: "wcs-front").path])
        #expect(history.status == 0, "\(history.output)")
    }
}
