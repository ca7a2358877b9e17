import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite struct SystemdNotifierTests {
    let dir = ScratchDirectory()

    @Test func sendsStatesToAPathSocket() throws {
        let path = dir.file("notify.sock")
        let listener = try NotifyListener(address: path)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        #expect(notifier.isEnabled)
        notifier.ready(status: "connected to ws://h")
        #expect(listener.receive() == "READY=1\nSTATUS=connected to ws://h")
        notifier.status("reconnecting\nin 2 s")
        #expect(listener.receive() == "STATUS=reconnecting in 2 s")
        notifier.watchdog()
        #expect(listener.receive() == "WATCHDOG=1")
        notifier.stopping()
        #expect(listener.receive() == "STOPPING=1")
        #expect(notifier.notify("EXTEND_TIMEOUT_USEC=5000000"))
        #expect(listener.receive() == "EXTEND_TIMEOUT_USEC=5000000")
    }

    @Test func sendsToAnAbstractSocket() throws {
        let name = "@wcs-agent-test-\(UUID().uuidString)"
        let listener = try NotifyListener(address: name)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": name])
        notifier.ready()
        #expect(listener.receive() == "READY=1")
    }

    @Test func isANoOpOutsideSystemd() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(!notifier.notify("READY=1"))
        #expect(notifier.watchdogInterval == nil)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "vsock:2:1234"]).isEnabled)
    }

    @Test func sendingToAMissingSocketFailsQuietly() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": dir.file("absent.sock")])
        #expect(!notifier.notify("READY=1"))
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsec() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000"]).watchdogInterval == 10)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(getpid())"]).watchdogInterval == 10)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(getpid() + 1)"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
    }
}
