import Foundation
import Synchronization
import Testing
import TestSupport
import WCSSession

/// The real daemon's webhook under attack and under a burst (issue 7 part 4).
@Suite(.serialized) struct PushWebhookLoadTests {
    @Test func slowlorisAndABurstOfGenuinePushes() async throws {
        try await onThread {
            let h = try AgentHarness()
            let url = try PushWebhookTests.startWithWebhook(h)
            let port = try #require(Int(url.split(separator: ":").last?.split(separator: "/").first ?? ""))
            try h.sleepAgent()
            let framesBefore = try h.connectionFrames()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2050")
            let real = try h.pushPayload(for: ring.callId)
            // One real ringing call and four calls the server never heard of (recorded as missed).
            let fakes = (1...4).map { #"{"id":"ghost-\#($0)","uuid":"u-\#($0)","handle":"20\#($0)"}"# }
            let bodies = [real] + fakes

            let attack = Slowloris(port: port, count: 200, interval: 0.3)
            defer { attack.stop() }
            usleep(1_500_000) // let the slow sockets pile up first

            let statuses = StatusTally()
            let started = Date()
            // 50 client threads (not concurrentPerform: it would run only one per core).
            let clients = DispatchGroup()
            for worker in 0..<50 {
                clients.enter()
                Thread {
                    for index in 0..<20 {
                        let status = RawHTTPClient.push(port: port, body: bodies[(worker + index) % bodies.count],
                                                        secret: PushWebhookTests.secret)
                        statuses.add(status)
                    }
                    clients.leave()
                }.start()
            }
            clients.wait()
            let elapsed = Date().timeIntervalSince(started)
            // The slow sockets die by the 2 s request deadline; on an idle machine the burst may end first.
            let dropDeadline = Date().addingTimeInterval(6)
            while attack.drops == 0 && Date() < dropDeadline { usleep(50_000) }
            let drops = attack.drops
            let all = statuses.all
            let failed = all.filter { !(200..<300).contains($0) }
            #expect(all.count == 1000)
            #expect(failed.isEmpty, "\(failed.count) non-2xx: \(Dictionary(grouping: failed, by: { $0 }).mapValues(\.count)); \(elapsed) s")
            #expect(drops > 0, "the slow sockets were evicted or timed out")

            // One wake per call id: the agent logs each id it acts on once, and reconnected once.
            let log = h.log()
            for body in bodies {
                let id = try #require(JSONValue.parse(body)["id"]?.stringValue)
                let wakes = log.components(separatedBy: "push for call \(id) from").count - 1
                #expect(wakes == 1, "call \(id) woke the agent \(wakes) times")
            }
            #expect(try h.connectionFrames() == framesBefore + 1)
            #expect(try h.statusCallIds().contains(ring.callId))
            #expect(!log.contains(PushWebhookTests.secret))
            print("webhook burst: 1000 pushes in \(String(format: "%.2f", elapsed)) s under 200 slowloris sockets; \(drops) slow sockets dropped")
        }
    }
}

/// HTTP statuses collected from many threads.
private final class StatusTally: Sendable {
    private let statuses = Mutex<[Int]>([])
    func add(_ status: Int) { statuses.withLock { $0.append(status) } }
    var all: [Int] { statuses.withLock { $0 } }
}
