import AudioPipe
import MediaBenchmarks
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// wcs-quality-replay: a received Opus stream through the agent's own receive path (jitter buffer,
// playout, decode, FEC, concealment) on a virtual 20 ms clock (`CallReceiveReplay`), so that the same
// packets always give the same audio. `scripts/bench_replay.py` writes the packet trace (speech
// encoded like the emulator's caller, loss and delay drawn like its impairment layer) and scores the
// output with PESQ-WB.
//
//   wcs-quality-replay TRACE OUT.raw [--reading tick|exact|tick-read] [--first-tick SECONDS] [--jitter KEY=VALUE,...]
//
// TRACE: one received packet per line, `SEQ TIMESTAMP ARRIVAL_SECONDS PAYLOAD_HEX` ('#' lines are
// comments). OUT.raw: 48 kHz mono s16le, one 20 ms frame per tick. Prints one JSON object of counters.
// --slots logs every slot on stderr. --jitter overrides the agent's jitter buffer defaults (minimumDelay, maximumDelay, delayQuantile,
// forgetFactor, startsAtOnce=0|1), for experiments.

func fail(_ message: String) -> Never {
    let line = Array("wcs-quality-replay: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func parseTrace(_ text: String) -> [CallReceiveReplay.Packet] {
    var packets: [CallReceiveReplay.Packet] = []
    for (index, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("#") {
        let fields = line.split(separator: " ")
        guard fields.count == 4, let seq = UInt16(fields[0]), let timestamp = UInt32(fields[1]),
              let arrival = Double(fields[2]), arrival.isFinite, let payload = hexBytes(fields[3]) else {
            fail("trace line \(index + 1) is not `SEQ TIMESTAMP ARRIVAL HEX`: \(line.prefix(60))")
        }
        packets.append(.init(sequenceNumber: seq, timestamp: timestamp, arrival: arrival, payload: payload))
    }
    return packets
}

func hexBytes(_ text: Substring) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

func applyJitter(_ spec: String, to configuration: inout CallMediaConfiguration) {
    for part in spec.split(separator: ",") {
        let pair = part.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, let value = Double(pair[1]) else { fail("bad --jitter part \(part)") }
        switch pair[0] {
        case "minimumDelay": configuration.jitter.minimumDelay = value
        case "maximumDelay": configuration.jitter.maximumDelay = value
        case "delayQuantile": configuration.jitter.delayQuantile = value
        case "forgetFactor": configuration.jitter.forgetFactor = value
        case "startsAtOnce": configuration.jitter.startsAtOnce = value != 0
        default: fail("unknown --jitter key \(pair[0])")
        }
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var reading = CallReceiveReplay.Reading.atTicks
var firstTick = 0.0
var configuration = CallMediaConfiguration()
var positional: [String] = []
var slotLog = false
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(argument) needs a value") }
        return arguments.removeFirst()
    }
    switch argument {
    case "--reading":
        let name = value()
        guard let chosen = CallReceiveReplay.Reading(rawValue: name) else {
            fail("--reading must be tick, exact or tick-read, not \(name)")
        }
        reading = chosen
    case "--first-tick":
        guard let seconds = Double(value()), seconds.isFinite else { fail("--first-tick needs seconds") }
        firstTick = seconds
    case "--slots":
        slotLog = true
    case "--jitter":
        applyJitter(value(), to: &configuration)
    default:
        positional.append(argument)
    }
}
guard positional.count == 2 else { fail("usage: wcs-quality-replay TRACE OUT.raw [--reading tick|exact|tick-read] [--first-tick S] [--jitter K=V,...]") }
let traceData: Data
do {
    traceData = try Data(contentsOf: URL(filePath: positional[0]))
} catch {
    fail("cannot read \(positional[0]): \(error)")
}
let packets = parseTrace(String(decoding: traceData, as: UTF8.self))
let result: CallReceiveReplay.Result
do {
    result = try CallReceiveReplay.run(packets, reading: reading, firstTick: firstTick, configuration: configuration,
                                       keepSlots: slotLog)
} catch {
    fail("\(error)")
}
let bytes = result.samples.withUnsafeBytes { Data($0) }
do {
    try bytes.write(to: URL(filePath: positional[1]))
} catch {
    fail("cannot write \(positional[1]): \(error)")
}
for (now, slot, state) in result.slots {
    // One line per slot on stderr: time, slot kind, target and current delay (ms), counters.
    let delay = state?.currentDelayMs.map { String(Int($0.rounded())) } ?? "-"
    let line = "slot \(Int((now * 1000).rounded())) \(slot) target \(Int((state?.targetDelayMs ?? 0).rounded())) delay \(delay) "
        + "lost \(state?.lost ?? 0) late \(state?.late ?? 0) stretched \(state?.stretched ?? 0) skipped \(state?.skipped ?? 0)\n"
    _ = Array(line.utf8).withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
let jitter = result.jitter
let fields: [(String, Int)] = [
    ("packets", packets.count), ("decoded", result.decoded), ("fec_recovered", result.recoveredFEC),
    ("concealed", result.concealed), ("silence", result.silence), ("late", jitter?.late ?? 0),
    ("lost", jitter?.lost ?? 0), ("stretched", jitter?.stretched ?? 0), ("skipped", jitter?.skipped ?? 0),
    ("target_delay_ms", Int((jitter?.targetDelayMs ?? 0).rounded())),
]
print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
