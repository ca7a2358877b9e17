import Foundation
import Testing
@testable import MainLoop

/// Threads started by `NamedThread` carry their name in the kernel (what `/proc`, `top -H` and
/// the thread counts in the issue notes read), cut to 15 bytes; Foundation's `Thread.name` alone
/// does not get there on Linux.
@Suite struct NamedThreadTests {
    /// The kernel's names of this process's threads.
    static func kernelThreadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
            try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .newlines)
        }
    }

    @Test func aStartedThreadIsNamedForTheKernel() throws {
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        NamedThread.start("core-named-test-thread-long") {
            running.signal()
            release.wait()
        }
        running.wait()
        defer { release.signal() }
        #expect(try Self.kernelThreadNames().contains("core-named-test"), "cut to 15 bytes")
    }

    @Test func aLoopThreadCarriesTheLoopsName() throws {
        let loop = MainLoop(name: "loop-name-check")
        defer { loop.stop() }
        #expect(try Self.kernelThreadNames().contains("loop-name-check"))
        #expect(loop.sync { (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) } == "loop-name-check\n")
    }
}
