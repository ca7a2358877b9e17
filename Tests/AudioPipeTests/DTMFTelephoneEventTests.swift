@testable import AudioPipe
import Testing

@Suite struct DTMFTelephoneEventTests {
    @Test func encodesTheRFC4733Layout() throws {
        #expect(try TelephoneEvent(event: 5, end: false, volume: 10, duration: 160).encoded == [5, 0x0A, 0x00, 0xA0])
        #expect(try TelephoneEvent(event: 11, end: true, volume: 63, duration: 0xFFFF).encoded == [11, 0xBF, 0xFF, 0xFF])
        #expect(try TelephoneEvent(digit: "#", end: true, volume: 0, duration: 800).encoded == [11, 0x80, 0x03, 0x20])
    }

    @Test func decodesAndIgnoresTheReservedBit() throws {
        let event = try TelephoneEvent(decoding: [1, 0x4A, 0x01, 0x40] as [UInt8])
        #expect(event.event == 1 && !event.end && event.volume == 10 && event.duration == 320)
        #expect(event.digit == "1")
        let ended = try TelephoneEvent(decoding: [15, 0xC5, 0, 0][...])
        #expect(ended.end && ended.volume == 5 && ended.digit == "D")
    }

    @Test func everyEventRoundTrips() throws {
        for code in UInt8(0)...16 {
            for end in [false, true] {
                let event = try TelephoneEvent(event: code, end: end, volume: code * 3, duration: UInt16(code) * 1000 + 7)
                #expect(try TelephoneEvent(decoding: event.encoded) == event)
            }
        }
    }

    @Test func digitTable() {
        for (index, key) in "0123456789*#ABCD".enumerated() {
            #expect(TelephoneEvent.eventCode(for: key) == UInt8(index))
            #expect(TelephoneEvent.digit(forEventCode: UInt8(index)) == key)
        }
        #expect(TelephoneEvent.eventCode(for: "c") == 14)
        for bad: Character in ["E", "x", " ", ",", "é", "+"] { #expect(TelephoneEvent.eventCode(for: bad) == nil) }
        #expect(TelephoneEvent.digit(forEventCode: TelephoneEvent.flash) == nil)
    }

    @Test func rejectsBadInput() {
        for length in [0, 3, 5, 8] {
            let error = #expect(throws: DTMFError.self) { try TelephoneEvent(decoding: [UInt8](repeating: 1, count: length)) }
            #expect(error == .badPayloadLength(length))
        }
        for code: UInt8 in [17, 32, 255] {
            #expect(throws: DTMFError.unsupportedEvent(code)) { try TelephoneEvent(decoding: [code, 0, 0, 0]) }
        }
        #expect(throws: DTMFError.volumeOutOfRange(64)) { try TelephoneEvent(event: 1, end: false, volume: 64, duration: 0) }
        #expect(throws: DTMFError.invalidDigit("x")) { try TelephoneEvent(digit: "x", end: false, duration: 0) }
        #expect(DTMFError.badPayloadLength(3).description == "telephone-event payload must be 4 bytes, got 3")
        #expect(DTMFError.unsupportedEvent(32).description == "telephone-event code 32 is not a DTMF event (0-16)")
    }
}
