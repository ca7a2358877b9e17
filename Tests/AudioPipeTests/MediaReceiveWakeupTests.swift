@testable import AudioPipe
import CGLib
import Foundation
import MainLoop
import Synchronization
import Testing

/// What the media context's polls saw (its poll function counts; one test uses it at a time).
private let pollsWithSocketData = Atomic<Int>(0)
private let pollsWithWakeup = Atomic<Int>(0)

/// The media context's poll function for the test: GLib's poll, then counts the polls where a
/// socket was readable and those where an eventfd (the context's wakeup) was.
private let countingPoll: GPollFunc = { fds, count, timeout in
    let result = g_poll(fds, count, timeout)
    guard result > 0, let fds else { return result }
    var socket = false
    var wakeup = false
    for index in 0..<Int(count) where fds[index].revents != 0 {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fds[index].fd)")) ?? ""
        if link.hasPrefix("socket:") { socket = true }
        if link.contains("eventfd") { wakeup = true }
    }
    if socket { pollsWithSocketData.add(1, ordering: .relaxed) }
    if wakeup { pollsWithWakeup.add(1, ordering: .relaxed) }
    return result
}

/// GLib 2.74 removes a source's fds before each dispatch and adds them back after, signalling the
/// context's wakeup eventfd each time (a write, then a read and one more poll), unless the source
/// may recurse (`G_SOURCE_CAN_RECURSE`). The media receive callback flags libnice's socket sources
/// (`MediaReceiveContext.allowRecursionOfCurrentSource`), so steady receiving on the media clock
/// costs no eventfd traffic. A GLib or libnice that changes this (e.g. dispatches our callback
/// from another source) fails here. Without the flag, every drain that read a datagram is followed
/// by one that sees the wakeup.
@Suite(.serialized) struct MediaReceiveWakeupTests {
    @MainLoopActor @Test func steadyReceivingOnTheMediaClockSignalsNoWakeup() async throws {
        let (clock, ticking) = ICEMediaClockReceiveTests.tickingClock("test-rx-wakeup")
        defer { clock.unregister(ticking) }
        g_main_context_set_poll_func(clock.receiveContext.context, countingPoll)
        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        let target = ICEMediaClockReceiveTests.TargetRecorder()
        pair.first.receiveOnMediaClock(clock.receiveContext, target: target.target)
        #expect(pair.first.session.receivesOnMediaClock == false)
        #expect(await ICETestSupport.wait { pair.first.session.receivesOnMediaClock })
        pair.second.send(ICETestSupport.datagram(tag: 9, index: 0))
        #expect(await ICETestSupport.wait { target.datagrams.count == 1 }, "the first dispatch flags the source")
        try await Task.sleep(for: .milliseconds(20))  // the wakeup of that first dispatch is read

        pollsWithSocketData.store(0, ordering: .relaxed)
        pollsWithWakeup.store(0, ordering: .relaxed)
        for index in 1...40 {
            pair.second.send(ICETestSupport.datagram(tag: 9, index: index))
            try await Task.sleep(for: .milliseconds(6))  // about one datagram per 5 ms drain
        }
        #expect(await ICETestSupport.wait { target.datagrams.count == 41 })
        let withData = pollsWithSocketData.load(ordering: .relaxed)
        let withWakeup = pollsWithWakeup.load(ordering: .relaxed)
        print("media context polls: \(withData) with socket data, \(withWakeup) with the wakeup eventfd")
        #expect(withData >= 10, "the datagrams were read over many drains")
        #expect(withWakeup <= 2, "no eventfd wakeup per dispatch (\(withWakeup) of \(withData))")
    }
}
