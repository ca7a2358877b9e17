@testable import AudioPipe
import Testing

@Suite struct DTMFReceiverTests {
    private func payload(_ event: UInt8, end: Bool = false, duration: UInt16 = 160) -> [UInt8] {
        [event, end ? 0x8A : 0x0A, UInt8(duration >> 8), UInt8(duration & 0xFF)]
    }

    @Test func senderScheduleIsDecodedOncePerDigit() throws {
        var receiver = DTMFReceiver()
        var digits: [Character] = []
        var sequence: UInt16 = 65530  // wraps during the run
        let base: UInt32 = 0xFFFF_F000  // and so does the timestamp
        for packet in try DTMFSender.schedule("159#*0D").flatMap({ $0 }) {
            sequence &+= 1
            if let event = try receiver.receive(payload: packet.payload, timestamp: base &+ packet.timestampOffset,
                                                sequenceNumber: sequence, marker: packet.marker) {
                #expect(!event.late)
                digits.append(try #require(event.digit))
            }
        }
        #expect(String(digits) == "159#*0D")
    }

    @Test func repeatedEndPacketsAndDuplicatesAreIgnored() throws {
        var receiver = DTMFReceiver()
        #expect(try receiver.receive(payload: payload(3), timestamp: 1000, sequenceNumber: 1, marker: true)?.digit == "3")
        #expect(try receiver.receive(payload: payload(3), timestamp: 1000, sequenceNumber: 1) == nil)
        #expect(try receiver.receive(payload: payload(3, duration: 320), timestamp: 1000, sequenceNumber: 2) == nil)
        for sequence: UInt16 in 3...5 {
            #expect(try receiver.receive(payload: payload(3, end: true, duration: 800), timestamp: 1000, sequenceNumber: sequence) == nil)
        }
    }

    @Test func lostStartPacketIsTolerated() throws {
        var receiver = DTMFReceiver()
        let event = try receiver.receive(payload: payload(7, duration: 480), timestamp: 5000, sequenceNumber: 40)
        #expect(event == DTMFDigitEvent(event: 7, digit: "7", timestamp: 5000, volume: 10, late: false))
        // Only the end packets of the next event arrive.
        #expect(try receiver.receive(payload: payload(8, end: true, duration: 800), timestamp: 6500, sequenceNumber: 48)?.digit == "8")
        #expect(try receiver.receive(payload: payload(8, end: true, duration: 800), timestamp: 6500, sequenceNumber: 49) == nil)
    }

    @Test func sameDigitTwiceIsTwoEventsByTimestamp() throws {
        var receiver = DTMFReceiver()
        #expect(try receiver.receive(payload: payload(1, end: true), timestamp: 100, sequenceNumber: 1)?.digit == "1")
        #expect(try receiver.receive(payload: payload(1), timestamp: 1540, sequenceNumber: 2, marker: true)?.digit == "1")
    }

    @Test func latePacketsOfOldEventsAreNotReportedAgain() throws {
        var receiver = DTMFReceiver()
        _ = try receiver.receive(payload: payload(1), timestamp: 100, sequenceNumber: 10, marker: true)
        _ = try receiver.receive(payload: payload(2), timestamp: 1540, sequenceNumber: 20, marker: true)
        #expect(try receiver.receive(payload: payload(1, end: true), timestamp: 100, sequenceNumber: 15) == nil)
        // An event nobody reported before is reported even if its packet is late, flagged as such.
        let late = try receiver.receive(payload: payload(4, end: true), timestamp: 900, sequenceNumber: 18)
        #expect(late?.digit == "4" && late?.late == true)
    }

    @Test func longEventSegmentsAreOneEvent() throws {
        var receiver = DTMFReceiver()
        #expect(try receiver.receive(payload: payload(0), timestamp: 10, sequenceNumber: 1, marker: true)?.digit == "0")
        #expect(try receiver.receive(payload: payload(0, duration: 0xFFFF), timestamp: 10, sequenceNumber: 2) == nil)
        #expect(try receiver.receive(payload: payload(0, duration: 160), timestamp: 10 + 0xFFFF, sequenceNumber: 3) == nil)
        #expect(try receiver.receive(payload: payload(0, end: true, duration: 800), timestamp: 10 + 0xFFFF, sequenceNumber: 4) == nil)
    }

    @Test func flashAndBadPayloads() throws {
        var receiver = DTMFReceiver()
        let flash = try receiver.receive(payload: payload(TelephoneEvent.flash), timestamp: 1, sequenceNumber: 1)
        #expect(flash?.event == 16 && flash?.digit == nil)
        #expect(throws: DTMFError.badPayloadLength(3)) { try receiver.receive(payload: [1, 2, 3], timestamp: 2, sequenceNumber: 2) }
        #expect(throws: DTMFError.unsupportedEvent(40)) { try receiver.receive(payload: payload(40), timestamp: 3, sequenceNumber: 3) }
        #expect(try receiver.receive(payload: payload(2), timestamp: 4, sequenceNumber: 4)?.digit == "2")
    }
}
