@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The real daemon puts its token and its call records on disk before it counts them as saved:
/// `strace` watches `fsync` and `rename` of the running `wcs-agent` binary.
@Suite(.serialized) struct DurableWritesTests {
    typealias Kit = CallControlTests
    static let strace = "/usr/bin/strace"

    /// The system calls of a traced agent, one line each: `fsync(5</path>) = 0`, `rename("a", "b") = 0`.
    struct Trace {
        let lines: [String]

        init(path: String) throws {
            lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        /// Indexes of successful `fsync`/`fdatasync` calls on a descriptor whose path satisfies `match`.
        func syncs(_ match: (String) -> Bool) -> [Int] {
            lines.indices.filter { index in
                let line = lines[index]
                guard line.contains("fsync(") || line.contains("fdatasync("), line.hasSuffix("= 0"),
                      let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">") else { return false }
                return match(String(line[line.index(after: open)..<close]))
            }
        }

        /// Indexes of successful renames of a file named `.NAME.tmp-…` to one named `NAME`.
        func renames(into name: String) -> [Int] {
            lines.indices.filter {
                let line = lines[$0]
                return line.contains("rename") && line.contains("/.\(name).tmp-") && line.contains("/\(name)\")") && line.hasSuffix("= 0")
            }
        }
    }

    @Test(.enabled(if: access(strace, X_OK) == 0, "needs /usr/bin/strace (make deps installs it)"))
    func theTokenAndEachCallRecordAreSyncedBeforeTheyCount() async throws {
        try await onThread {
            let h = try AgentHarness()
            let tracePath = h.scratch.file("agent.strace")
            try h.start(launcher: [Self.strace, "-f", "-qq", "-y", "--seccomp-bpf", "-e", "signal=none",
                                   "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-o", tracePath])
            _ = try h.storedToken()
            let sock = ["--socket", h.socketPath]
            var ids: [String] = []
            for n in 0..<2 {
                let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "20\(n)0")
                try h.waitFor("ringing") { try Kit.statusCall(h, ring.callId) != nil }
                #expect(try h.cli(["decline", ring.callId] + sock).code == 0)
                _ = try Kit.waitForRecord(h, ring.callId)
                ids.append(ring.callId)
            }
            // Stop the agent itself (strace's child); strace then exits and its trace is complete.
            let tracer = try #require(h.daemon)
            let children = try String(contentsOfFile: "/proc/\(tracer.pid)/task/\(tracer.pid)/children", encoding: .utf8)
            let agent = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
            kill(agent, SIGTERM)
            #expect(tracer.waitForExit(timeout: 20) != nil)
            let trace = try Trace(path: tracePath)

            // The token: its temporary file is synced, then renamed over token.json. (strace shows
            // descriptors by their canonical path.)
            let stateDir = try #require(realpath(h.stateDir, nil).map { path in defer { free(path) }; return String(cString: path) })
            let renames = trace.renames(into: "token.json")
            let tokenSyncs = trace.syncs { $0.hasPrefix(stateDir + "/.token.json.tmp-") }
            #expect(!renames.isEmpty, "token.json was never renamed into place:\n\(trace.lines.joined(separator: "\n"))")
            #expect(!tokenSyncs.isEmpty, "the token's temporary file was never synced:\n\(trace.lines.joined(separator: "\n"))")
            if let rename = renames.first { #expect(tokenSyncs.contains { $0 < rename }, "synced before the rename") }

            // The journal: one sync per finished call at least.
            let journalSyncs = trace.syncs { $0 == stateDir + "/calls.jsonl" }
            #expect(journalSyncs.count >= ids.count, "calls.jsonl synced \(journalSyncs.count) times for \(ids.count) records")
        }
    }
}
