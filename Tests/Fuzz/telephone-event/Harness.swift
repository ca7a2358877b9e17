// Fuzz harness: RFC 4733 telephone-event payloads (AudioPipe/DTMF), as the receive path feeds
// every packet of the negotiated telephone-event payload type to `DTMFReceiver`. Runs on
// libFuzzer's one thread; built by scripts/fuzz.py.

import Foundation
@testable import AudioPipe

/// One input is a sequence of packets, each `length (1) | sequence (2) | timestamp (4) |
/// marker (1) | payload (length & 7 bytes)`, fed to one receiver. Checks: nothing traps; a
/// payload that decodes encodes back to itself (R bit cleared); a key is reported at most once
/// per (timestamp, event) while the receiver remembers it; reported keys are DTMF keys or flash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTelephoneEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var receiver = DTMFReceiver(memory: 4)
    var reported: [(timestamp: UInt32, event: UInt8)] = []
    while !input.isEmpty {
        let length = Int(input.byte() & 7)
        let sequence = input.uint16()
        let timestamp = input.uint32()
        let marker = input.byte() & 1 == 1
        let payload = input.take(length)

        if let event = try? TelephoneEvent(decoding: payload) {
            var expected = payload
            expected[1] &= 0xBF
            fuzzCheck(event.encoded == expected, "encoded \(event.encoded) for payload \(payload)")
            fuzzCheck(event.event <= TelephoneEvent.flash && event.volume <= 63, "decoded an out-of-range event \(event)")
        }
        guard let key = try? receiver.receive(payload: payload, timestamp: timestamp, sequenceNumber: sequence, marker: marker) else {
            continue
        }
        fuzzCheck(key.timestamp == timestamp, "reported timestamp \(key.timestamp) for a packet of \(timestamp)")
        fuzzCheck((key.digit == nil) == (key.event == TelephoneEvent.flash), "event \(key.event) reported as \(String(describing: key.digit))")
        let recent = reported.suffix(1)
        fuzzCheck(!recent.contains { $0.timestamp == timestamp && $0.event == key.event },
                  "event \(key.event) at \(timestamp) reported twice in a row")
        reported.append((timestamp, key.event))
    }
    return 0
}
