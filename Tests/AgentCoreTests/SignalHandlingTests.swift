import TestSupport
@testable import AgentCore
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite struct SignalHandlingTests {
    @Test func deliversSignalsThroughTheStream() async throws {
        // SIGUSR2 stands in for SIGTERM/SIGHUP so a mistake cannot stop the test run.
        let stream = SignalHandling.signals([SIGUSR2])
        let sender = Task {
            // Repeat until received: the dispatch source registers asynchronously.
            while !Task.isCancelled {
                kill(getpid(), SIGUSR2)
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        defer { sender.cancel() }
        let received = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await number in stream { return number }
                return nil
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: 30_000_000_000)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(received == SIGUSR2)
        #expect(SignalHandling.daemonSignals == [SIGTERM, SIGINT, SIGHUP])
    }
}
