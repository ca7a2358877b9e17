import Foundation
import Synchronization
import Testing
@testable import MainLoop
import TestSupport

/// Threads started by `NamedThread` carry their name in the kernel (what `/proc`, `top -H` and
/// the thread counts in the issue notes read), cut to 15 bytes; a requested stack size is the
/// thread's stack size.
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

    /// The size of this process's mapping that holds `address` (from /proc/self/maps, read to the
    /// end: `String(contentsOfFile:)` can stop after procfs's first page, and a test process with
    /// many libraries loaded has its thread stacks further down), or nil.
    static func mappingSize(holding address: UInt) throws -> UInt? {
        for line in try MappedFiles.mapsText().split(separator: "\n") {
            let range = line.split(separator: " ")[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            if range.count == 2, range[0] <= address, address < range[1] { return range[1] - range[0] }
        }
        return nil
    }

    /// glibc maps a thread's stack (less its guard page) as one mapping of the requested size. It
    /// may reuse a freed stack of up to 4 times the size, so the sizes here are ones no other
    /// thread of the test process uses within that range (the default is 8 MB; 1 MB for media).
    @Test func aRequestedStackSizeIsTheThreadsStackSize() throws {
        for requested: UInt in [1 << 20, 192 << 10] {
            let mapped = Mutex<UInt?>(nil)
            let done = DispatchSemaphore(value: 0)
            NamedThread.start("stack-size-test", stackSize: Int(requested)) {
                var local = 0
                let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
                mapped.withLock { $0 = try? Self.mappingSize(holding: address) }
                done.signal()
            }
            done.wait()
            let size = try #require(mapped.withLock { $0 })
            #expect(size <= requested && size >= requested - 65_536, "requested \(requested), mapped \(size)")
        }
    }

    @Test func aLoopThreadCarriesTheLoopsName() throws {
        let loop = MainLoop(name: "loop-name-check")
        defer { loop.stop() }
        #expect(try Self.kernelThreadNames().contains("loop-name-check"))
        #expect(loop.sync { (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) } == "loop-name-check\n")
    }
}
