import AgentCore
import AudioPipe
import DTMFHarness
import MediaBenchmarks
import Foundation

// wcs-door-bench: issue 22's door-station figures for `make bench` (scripts/bench_door.py calls it).
// Prints one JSON object. `--codes N` (1000) door codes as tones under speech 10 dB down over Opus
// at 5 % loss, and the same number sent as RFC 4733 packets with 5 % of packets lost; `--quiet-minutes M` (60)
// minutes of espeak-ng speech and synthesised music with no digits, for false keys; the detector's CPU
// per frame beside the Opus floor (encode + decode per frame, CodecBenchmark).
func argument(_ name: String, _ fallback: Double) -> Double {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Double(arguments[index + 1]) else { return fallback }
    return value
}
let codes = Int(argument("--codes", 1000))
let quietMinutes = argument("--quiet-minutes", 60)
let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("wcs-door-bench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

let inAudio = try DTMFCodeRun.run(codes: codes, noDigitSeconds: quietMinutes * 60, lossPercent: argument("--loss", 5),
                                  speechUnderDB: argument("--under", 10), work: work)
if CommandLine.arguments.contains("--misses") {
    for miss in inAudio.misses { FileHandle.standardError.write(Data("sent \(miss.sent) reported \(miss.reported)\n".utf8)) }
    FileHandle.standardError.write(Data("false keys: \(inAudio.falseDigitKeys)\n".utf8))
}
let floor = CodecBenchmark.run(frames: 3000)
let round = { (value: Double) in (value * 100).rounded() / 100 }
let result: [String: Any] = [
    "in_audio": [
        "codes": inAudio.codes, "codes_intact": inAudio.codesIntact, "keys_sent": inAudio.keysSent, "keys_found": inAudio.keysFound,
        "extra_keys": inAudio.extraKeys, "last_key_ms_median": round(inAudio.percentile(0.5)),
        "last_key_ms_p99": round(inAudio.percentile(0.99)), "last_key_ms_max": round(inAudio.percentile(1)),
        "false_keys": inAudio.falseDigits, "false_key_list": inAudio.falseDigitKeys, "quiet_seconds": round(inAudio.noDigitSeconds),
        "frames": inAudio.frames, "lost_frames": inAudio.lostFrames,
        "detector_us_per_frame": round(inAudio.detectorMicrosPerFrame),
        "detector_percent_of_core": (inAudio.detectorMicrosPerFrame * 50 / 1e4 * 1000).rounded() / 1000,
    ],
    "opus_floor_us_per_frame": round(floor.encodeMicros + floor.decodeMicros),
    "opus_floor_percent_of_core": round((floor.encodeMicros + floor.decodeMicros) * 50 / 1e4),
]
print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))

