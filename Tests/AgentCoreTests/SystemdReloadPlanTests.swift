import TestSupport
@testable import AgentCore
import MainLoop
import Testing

/// How a SIGHUP reload sorts configuration changes.
@Suite struct SystemdReloadPlanTests {
    let base: AgentConfig = {
        var c = AgentConfig(server: "ws://127.0.0.1:8080")
        c.sipLogin = "1001"
        c.sipPassword = "pw-1"
        c.stateDir = "/var/lib/a"
        c.socketPath = "/run/a/control.sock"
        return c
    }()

    @Test func identicalConfigsChangeNothing() {
        let plan = ConfigReloadPlan(running: base, loaded: base)
        #expect(plan.isEmpty)
        #expect(!plan.needsNewSession)
        #expect(plan.summary == "no changes")
        #expect(plan.effective == base)
    }

    @Test func audioLogAndMediaSettingsApplyInPlace() throws {
        var new = base
        new.logLevel = .debug
        new.answerMode = .auto
        new.audioSource = try AudioSourceSpec(parsing: "tone:440")
        new.codecs = ["pcmu"]
        let plan = ConfigReloadPlan(running: base, loaded: new)
        #expect(plan.live == ["[agent] log_level", "[audio] source", "[audio] answer", "[media] codecs"])
        #expect(plan.reconnect.isEmpty && plan.relogin.isEmpty && plan.needsRestart.isEmpty)
        #expect(!plan.needsNewSession)
        #expect(plan.effective == new)
    }

    @Test func connectionSettingsReconnectByToken() {
        var new = base
        new.connectTimeout = 3
        new.insecureTLS = true
        let plan = ConfigReloadPlan(running: base, loaded: new)
        #expect(plan.reconnect == ["[server] insecure_tls", "[server] connect_timeout"])
        #expect(plan.relogin.isEmpty)
        #expect(plan.needsNewSession)
    }

    @Test func accountChangesNeedAFreshLoginAndNeverShowTheSecret() {
        var new = base
        new.server = "ws://127.0.0.1:9090"
        new.sipPassword = "pw-2"
        let plan = ConfigReloadPlan(running: base, loaded: new)
        #expect(plan.relogin == ["[server] url", "[sip] password"])
        #expect(plan.needsNewSession)
        #expect(!plan.summary.contains("pw-2") && !plan.summary.contains("pw-1"))
        #expect(plan.summary.contains("new login for: [server] url, [sip] password"))
    }

    @Test func stateDirAndSocketKeepTheirRunningValues() {
        var new = base
        new.stateDir = "/elsewhere"
        new.socketPath = "/elsewhere/control.sock"
        new.answerMode = .after(3)
        let plan = ConfigReloadPlan(running: base, loaded: new)
        #expect(plan.needsRestart == ["[agent] state_dir", "[agent] socket"])
        #expect(plan.effective.stateDir == "/var/lib/a")
        #expect(plan.effective.socketPath == "/run/a/control.sock")
        #expect(plan.effective.answerMode == .after(3))
        #expect(plan.live == ["[audio] answer"])
        #expect(plan.summary.contains("needs a restart (kept): [agent] state_dir, [agent] socket"))
    }
}
