import AudioPipe
import MediaBenchmarks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// wcs-bench: in-process media figures for `make bench` (release build).
// Prints one JSON object: Opus encode/decode cost per 20 ms frame (the floor of a call's CPU: the
// agent's calls use the default OpusEncoderConfiguration too, see CallCodecSet), and a two-party
// loopback call. `wcs-bench --send-path` prints only the send path's CPU per packet instead
// (`ICESendBenchmark`: libnice's send against a direct sendto on the selected socket, SRTP protect).
// `wcs-bench --opus-cadence` prints libopus's CPU per frame back to back and at a call's 20 ms
// cadence instead (`CodecCadenceBenchmark`).
if CommandLine.arguments.contains("--send-path") {
    let send = try await ICESendBenchmark.run()
    let round = { (value: Double) in (value * 100).rounded() / 100 }
    let figures: [String: Any] = [
        "packets": send.packets, "libnice_send_us_per_packet": round(send.libniceMicros),
        "direct_send_us_per_packet": round(send.directMicros),
        "srtp_protect_us_per_packet": send.protectMicros.mapValues(round),
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]), as: UTF8.self))
    exit(0)
}
if CommandLine.arguments.contains("--opus-cadence") {
    // libopus per frame back to back (as the floor below) and at a call's cadence (one frame per
    // 20 ms, sleeping between), in thread CPU time, alternating blocks: CodecCadenceBenchmark.
    var figures: [String: Any] = ["opus_complexity": OpusEncoderConfiguration().complexity]
    for signal in CodecCadenceBenchmark.Signal.allCases {
        let cadence = try CodecCadenceBenchmark.run(signal: signal)
        figures[signal.rawValue] = [
            "back_to_back_us_per_frame": (cadence.backToBackMicros * 10).rounded() / 10,
            "paced_20ms_us_per_frame": (cadence.pacedMicros * 10).rounded() / 10,
            "frames_per_mode": cadence.framesPerMode,
        ]
    }
    print(String(decoding: try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]), as: UTF8.self))
    exit(0)
}
let frames = 3000
let opusSettings = OpusEncoderConfiguration()
let cpuBefore = processCPUSeconds()
let codec = CodecBenchmark.run(frames: frames)
// CPU time, not wall time: on a loaded machine the wall clock also counts other processes' turns.
let codecCPUMicros = (processCPUSeconds() - cpuBefore) * 1e6 / Double(frames)
var result: [String: Any] = [
    "opus_encode_us_per_frame": (codec.encodeMicros * 10).rounded() / 10,
    "opus_decode_us_per_frame": (codec.decodeMicros * 10).rounded() / 10,
    "opus_cpu_us_per_frame_encode_and_decode": (codecCPUMicros * 10).rounded() / 10,
    "opus_complexity": opusSettings.complexity,
    "opus_bitrate": opusSettings.bitrate,
]
do {
    let call = try await CallMediaBenchmark.run(seconds: 5)
    result["loopback_call_seconds"] = call.mediaSeconds
    result["loopback_call_cpu_percent_of_one_core_two_parties"] = (call.cpuPercentOfOneCore * 10).rounded() / 10
    if let first = call.answerToFirstAudio { result["loopback_answer_to_first_audio_ms"] = (first * 10000).rounded() / 10 }
    result["loopback_packets_each_way"] = [call.offererSent, call.answererSent]
} catch {
    result["loopback_call_error"] = "\(error)"
}
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))

/// User plus system CPU seconds of this process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
