@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import WCSSession

/// The real daemon's control socket when descriptors are short. Issue 19 point 7: under
/// `LimitNOFILE=256`, 300 idle control clients stay within the control budget (the oldest idle ones
/// are evicted), so a new `status` answers and a call is answered. Issue 7 part 4: when the process
/// really runs out (a limit just above what it holds), the listener pauses instead of spinning,
/// logs once, existing clients are still served, and it accepts again once descriptors are free.
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

    /// Descriptors the process `pid` holds now.
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test func idleClientsNeverStarveStatusOrACall() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--answer", "auto", "--audio-source", "silence", "--audio-sink", "null", "--media-address", "127.0.0.1"])
            let pid = try #require(h.daemon?.pid)
            // An events follower from before (the prompt, a supervisor): a subscriber outlives idle clients.
            let follower = try RawLineClient(path: h.socketPath)
            follower.send("{\"id\": 1, \"verb\": \"subscribe\"}\n")
            #expect(follower.readLine()?["ok"] == true)

            let limited = try run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=256:256"])
            #expect(limited.status == 0, "prlimit: \(limited.output)")
            let idle = try Self.flood(h.socketPath, count: 300)
            defer { for fd in idle { close(fd) } }
            #expect(idle.count == 300, "only \(idle.count) of 300 clients connected")
            let held = Self.openDescriptors(pid)
            print("descriptor budget: 300 idle clients under a limit of 256, the daemon holds \(held) descriptors")
            #expect(held <= 256 - 100, "the daemon holds \(held) of 256 descriptors with idle clients")

            // A new client's status answers; a call rings and is answered (its sockets have room).
            #expect(try h.status()["state"] == "online")
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("the call answered under the descriptor limit", timeout: 20) {
                try h.emulator.control.call(ring.callId)?.state == "established"
            }
            #expect(follower.readLine() != nil, "the events follower is still served")
            #expect(!h.log().contains("cannot accept control connections"), "the listener ran out of descriptors")
            #expect(h.log().contains("evicting the longest idle ones"))
            try h.emulator.control.hangup(callId: ring.callId)
            #expect(try CallControlTests.waitForRecord(h, ring.callId).endResult == .completed)
        }
    }

    @Test func theListenerPausesAndResumesWithoutSpinning() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let pid = try #require(h.daemon?.pid)
            let keeper = try RawLineClient(path: h.socketPath)
            keeper.send("{\"id\": 1, \"verb\": \"status\"}\n")
            #expect(keeper.readLine()?["ok"] == true)

            // Room for 4 more descriptors only: below the control budget (at least 8), so accept fails.
            let limit = Self.openDescriptors(pid) + 4
            let limited = try run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(limit):\(limit)"])
            #expect(limited.status == 0, "prlimit: \(limited.output)")
            let idle = try Self.flood(h.socketPath, count: 300)
            defer { for fd in idle { close(fd) } }
            #expect(idle.count > 4, "only \(idle.count) clients connected")

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
