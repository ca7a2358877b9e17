import TestSupport
import Foundation
import Testing
@testable import AgentCore

@Suite struct CallRecordStoreTests {
    @Test func recordsRoundTripAsJSONLinesWithISODates() throws {
        let dir = ScratchDirectory()
        let store = CallRecordStore(directory: dir.path)
        let start = Date(timeIntervalSince1970: 1_800_000_000.25)
        let record = CallRecord(callId: "c1", direction: "incoming", caller: "2000", callee: "1001", displayName: "Door",
                                started: start, answered: start.addingTimeInterval(2), ended: start.addingTimeInterval(12.5),
                                endResult: .completed, info: "Normal call clearing",
                                media: CallMediaRecord(codec: "opus", packetsSent: 500, packetsReceived: 498, packetsLost: 2,
                                                       jitterMs: 1.5, rttMs: 3), recording: "/x/c1.wav")
        try store.append(record)
        try store.append(CallRecord(callId: "c2", direction: "incoming", caller: "2001", callee: nil, displayName: nil,
                                    started: start, answered: nil, ended: start, endResult: .missedWhileAsleep, info: nil))
        let back = try store.read()
        #expect(back.count == 2)
        #expect(back[0].callId == "c1" && back[0].duration == 10.5 && back[0].endResult == .completed)
        #expect(abs(back[0].started.timeIntervalSince(start)) < 0.001)
        #expect(back[1].endResult == .missedWhileAsleep && back[1].answered == nil)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.contains("\"end_result\":\"missed_while_asleep\""))
        #expect(text.contains("\"started\":\"2027-01-15T08:00:00.250Z\""))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
