@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import WCSSession

/// The real daemon's control socket when the process runs out of descriptors (issue 7 part 4):
/// the listener pauses instead of spinning, logs once, existing clients are still served, and it
/// accepts again once descriptors are free.
@Suite(.serialized) struct ControlFDExhaustionTests {
    /// CPU seconds (user + system) the process `pid` used so far.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (Double(fields[11])! + Double(fields[12])!) / ticks
    }

    /// Opens up to `count` non-blocking connections, waiting for the backlog when it is full;
    /// gives up on the rest once the backlog stays full for half a second (nobody accepts).
    static func flood(_ path: String, count: Int) throws -> [Int32] {
        let address = try UnixSocketAddress(path)
        var kept: [Int32] = []
        var fullSince: Date?
        while kept.count < count {
            let fd = try UnixStreamSocket.make(operation: "flood", path: path)
            guard UnixStreamSocket.startConnect(fd, to: address) == 0 else {
                close(fd)
                if let since = fullSince, Date().timeIntervalSince(since) > 0.5 { break }
                fullSince = fullSince ?? Date()
                usleep(2000)
                continue
            }
            fullSince = nil
            kept.append(fd)
        }
        return kept
    }

    @Test func theListenerPausesAndResumesWithoutSpinning() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let pid = try #require(h.daemon?.pid)
            let keeper = try RawLineClient(path: h.socketPath)
            keeper.send("{\"id\": 1, \"verb\": \"status\"}\n")
            #expect(keeper.readLine()?["ok"] == true)

            let limited = try run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=256:256"])
            #expect(limited.status == 0, "prlimit: \(limited.output)")
            let idle = try Self.flood(h.socketPath, count: 300)
            defer { for fd in idle { close(fd) } }
            #expect(idle.count > 200, "only \(idle.count) clients connected")

            let cpuBefore = try Self.cpuSeconds(pid)
            sleep(3)
            let cpuUsed = try Self.cpuSeconds(pid) - cpuBefore
            // A listener spinning on EMFILE burns a whole core (the old one: 166 % and 43 MB of log).
            #expect(cpuUsed < 1.0, "the daemon used \(cpuUsed) s of CPU in 3 s while out of descriptors")
            print("fd exhaustion: \(idle.count) idle clients, daemon CPU \(String(format: "%.2f", cpuUsed)) s in 3 s")
            let episodes = h.log().components(separatedBy: "cannot accept control connections").count - 1
            #expect(episodes == 1, "expected one log line for the episode, got \(episodes)")

            // A client connected before the exhaustion is still served.
            keeper.send("{\"id\": 2, \"verb\": \"status\"}\n")
            let answer = keeper.readLine()
            #expect(answer?["ok"] == true && answer?["id"] == 2, "status on an existing connection: \(String(describing: answer))")

            // Descriptors come back: the listener accepts again (the CLI opens a new connection).
            for fd in idle { close(fd) }
            try h.waitFor("a new control connection after the episode") { try h.status()["state"] == "online" }
            #expect(h.log().components(separatedBy: "cannot accept control connections").count - 1 == 1)
        }
    }
}
