@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A datagram socket standing in for systemd's notification socket.
final class NotifyListener {
    let fd: Int32

    init(address: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let unixAddress = try UnixSocketAddress(address)
        guard unixAddress.withSockaddr({ bind(fd, $0, $1) }) == 0 else { throw SystemCallError.current("bind", path: address) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }
}

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
