@testable import AgentCore
import Foundation
import Testing
import TestSupport
import WCSSession

/// `wcs-agent run` speaks the sd_notify protocol: READY=1, STATUS=, WATCHDOG=1, RELOADING=1 on
/// SIGHUP, STOPPING=1 on SIGTERM. Runs the real binary against the emulator.
@Suite(.serialized) struct SystemdNotifyDaemonTests {
    /// A config file for the harness's emulator and account.
    static func config(_ h: AgentHarness, logLevel: String = "info", answer: String = "manual",
                       extra: String = "") -> String {
        """
        [server]
        url = \(h.emulator.url)
        \(extra)
        [sip]
        login = \(AgentHarness.login)
        password_file = \(h.passwordFile)
        domain = pbx.test

        [agent]
        log_level = \(logLevel)

        [audio]
        answer = \(answer)
        """
    }

    static func launch(_ h: AgentHarness, configPath: String, notify: NotifyCollector, watchdogUsec: Int? = 400_000) throws -> ChildProcess {
        let child = try ChildProcess(executable: AgentHarness.binary,
                                     arguments: ["run", "--config", configPath, "--state-dir", h.stateDir, "--socket", h.socketPath],
                                     stderrPath: h.logPath,
                                     environment: systemdEnvironment(notifySocket: notify.path, watchdogUsec: watchdogUsec))
        return child
    }

    @Test func readyStatusWatchdogReloadAndStop() async throws {
        try await onThread {
            let h = try AgentHarness()
            let notify = try NotifyCollector(path: h.scratch.file("notify.sock"))
            let configPath = h.scratch.file("agent.conf")
            try Self.config(h).write(toFile: configPath, atomically: true, encoding: .utf8)
            let child = try Self.launch(h, configPath: configPath, notify: notify)
            defer { child.kill() }

            // READY=1 after the login, with the session in its status line; "connecting" came first.
            let ready = try #require(notify.waitFor { $0.hasPrefix("READY=1") }, "no READY=1; log:\n\(h.log())")
            let session = try #require(try h.emulator.control.sessions().first)
            #expect(notify.messages[ready] == "READY=1\nSTATUS=online, session \(session.id)")
            #expect(notify.messages[..<ready].contains { $0.hasPrefix("STATUS=connecting to \(h.emulator.url)") })
            #expect(!notify.messages.joined().contains(session.token))
            // WATCHDOG=1 repeats (every 0.2 s for WATCHDOG_USEC=400000).
            #expect(notify.waitFor(from: ready) { _ in notify.messages.filter { $0 == "WATCHDOG=1" }.count >= 3 } != nil)
            #expect(try h.status()["answer_mode"] == "manual")
            #expect(try h.status()["log_level"] == "info")

            // SIGHUP with a new log level and answer mode: applied in place, same socket and session.
            try Self.config(h, logLevel: "debug", answer: "auto").write(toFile: configPath, atomically: true, encoding: .utf8)
            var mark = notify.messages.count
            child.signal(SIGHUP)
            let reloading = try #require(notify.waitFor(from: mark) { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") })
            let reloaded = try #require(notify.waitFor(from: reloading) { $0.hasPrefix("READY=1") })
            #expect(notify.messages[reloaded].contains("reloaded (applied: [agent] log_level, [audio] answer)"))
            #expect(notify.messages[reloaded].contains("online, session \(session.id)"))
            let afterReload = try h.status()
            #expect(afterReload["answer_mode"] == "auto")
            #expect(afterReload["log_level"] == "debug")
            #expect(afterReload["state"] == "online")
            #expect(try h.connectionFrames() == 1, "a live reload does not reconnect")
            try h.waitFor("debug lines after the reload") { h.log().contains("DEBUG") }

            // SIGHUP with a broken config: logged, the running configuration stays.
            try (Self.config(h) + "\n[audio]\nanswer = sometimes\n").write(toFile: configPath, atomically: true, encoding: .utf8)
            mark = notify.messages.count
            child.signal(SIGHUP)
            let refused = try #require(notify.waitFor(from: mark) { $0.hasPrefix("READY=1") })
            #expect(notify.messages[refused].contains("reload failed, previous configuration kept"))
            let afterRefusal = try h.status()
            #expect(afterRefusal["answer_mode"] == "auto")
            #expect(afterRefusal["state"] == "online")
            #expect(h.log().contains("reload failed"))
            #expect(child.isRunning)

            // SIGTERM: STOPPING=1, exit 0, socket removed, the server keeps the session.
            mark = notify.messages.count
            child.signal(SIGTERM)
            #expect(child.waitForExit(timeout: 15) == 0)
            #expect(notify.waitFor(from: mark) { $0.hasPrefix("STOPPING=1") } != nil)
            #expect(!FileManager.default.fileExists(atPath: h.socketPath))
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }
            #expect(try h.emulator.control.sessions().map(\.id) == [session.id])
        }
    }

    @Test func readyAtOnceWithAStoredTokenWhileTheServerIsUnreachable() async throws {
        try await onThread {
            let h = try AgentHarness()
            let (blocker, port) = try refusingPort()
            defer { close(blocker) }
            let server = "ws://127.0.0.1:\(port)"
            try TokenStore(directory: h.stateDir).save(StoredToken(server: server, token: "tok-kept", sessionId: "sess-kept"))
            let notify = try NotifyCollector(path: h.scratch.file("notify.sock"))
            let child = try ChildProcess(executable: AgentHarness.binary,
                                         arguments: ["run", "--server", server, "--sip-login", AgentHarness.login,
                                                     "--sip-password-file", h.passwordFile, "--state-dir", h.stateDir,
                                                     "--socket", h.socketPath],
                                         stderrPath: h.logPath,
                                         environment: systemdEnvironment(notifySocket: notify.path, watchdogUsec: nil))
            defer { child.kill() }
            let ready = try #require(notify.waitFor { $0.hasPrefix("READY=1") }, "no READY=1; log:\n\(h.log())")
            #expect(notify.messages[ready] == "READY=1\nSTATUS=resuming session sess-kept by token")
            #expect(notify.waitFor(from: ready) { $0.hasPrefix("STATUS=reconnecting in ") } != nil)
            try h.waitFor("control socket") { try h.status()["has_token"] == true }
            #expect(try TokenStore(directory: h.stateDir).load()?.token == "tok-kept", "an unreachable server keeps the token")
            #expect(!notify.messages.contains("WATCHDOG=1"), "no WATCHDOG_USEC, no pings")
            child.signal(SIGTERM)
            #expect(child.waitForExit(timeout: 15) == 0)
            #expect(notify.messages.contains { $0.hasPrefix("STOPPING=1") })
        }
    }

    @Test func reloadingConnectionOrAccountSettingsReconnects() async throws {
        try await onThread {
            let h = try AgentHarness()
            let notify = try NotifyCollector(path: h.scratch.file("notify.sock"))
            let configPath = h.scratch.file("agent.conf")
            try Self.config(h).write(toFile: configPath, atomically: true, encoding: .utf8)
            let child = try Self.launch(h, configPath: configPath, notify: notify, watchdogUsec: nil)
            defer { child.kill() }
            #expect(notify.waitFor { $0.hasPrefix("READY=1") } != nil)
            let first = try #require(try h.emulator.control.sessions().first?.id)

            // A connection setting: a new socket resumes the same server session by token.
            try Self.config(h, extra: "connect_timeout = 7").write(toFile: configPath, atomically: true, encoding: .utf8)
            child.signal(SIGHUP)
            try h.waitFor("second connection") { try h.connectionFrames() == 2 && h.status()["state"] == "online" }
            #expect(try h.status()["session_id"]?.stringValue == first)
            #expect(try h.emulator.control.sessions().map(\.id) == [first])

            // An account setting: the token is dropped and a fresh login makes a new session.
            try Self.config(h, extra: "connect_timeout = 7\napp_key = otherApp").write(toFile: configPath, atomically: true, encoding: .utf8)
            child.signal(SIGHUP)
            try h.waitFor("fresh login") {
                let s = try h.status()
                return s["state"] == "online" && s["session_id"]?.stringValue != first
            }
            let stored = try h.storedToken()
            #expect(stored["sessionId"]?.stringValue == (try h.status()["session_id"]?.stringValue), "the new session's token is stored")
            #expect(h.log().contains("new login for: [server] app_key"))
            child.signal(SIGTERM)
            #expect(child.waitForExit(timeout: 15) == 0)
        }
    }
}
