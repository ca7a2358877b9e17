import AudioPipe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// wcs-voice-bench: the product's voice processing (VoiceProcessingStage, the call's own stage) on
// files, for the echo harness (Benchmarks/echo/harness.py). Reads the microphone and the far end
// as raw 48 kHz mono s16le, feeds them tick by tick as a call does (the far frame handed to the
// sink, then the captured frame), writes the output, and prints one JSON object: the engine, the
// thread CPU per 20 ms frame (and the same files through Opus encode + decode, the call's floor,
// with --opus-floor) and the stage's own figures at the end.
//
//   wcs-voice-bench --engine webrtc|speex|off --mic MIC.raw --far FAR.raw --out OUT.raw
//                   [--no-ns] [--agc] [--no-high-pass] [--tail-ms N] [--delay-ms N] [--opus-floor]
// --delay-ms: the delay the devices would report (0: the engine finds the whole echo path itself).

func argument(_ name: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("wcs-voice-bench: " + message + "\n").utf8))
    exit(2)
}

func readSamples(_ path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

guard let micPath = argument("--mic"), let farPath = argument("--far"), let outPath = argument("--out") else {
    fail("usage: --engine webrtc|speex|off --mic MIC.raw --far FAR.raw --out OUT.raw [--no-ns] [--agc] [--no-high-pass] [--tail-ms N] [--delay-ms N] [--opus-floor]")
}
let engineName = argument("--engine") ?? "webrtc"
var settings = VoiceProcessingSettings()
if engineName == "off" {
    settings.echoCancel = false
    settings.noiseSuppression = false
    settings.highPass = false
} else {
    guard let engine = VoiceProcessingSettings.Engine(rawValue: engineName) else { fail("unknown engine \(engineName)") }
    settings.engine = engine
    settings.noiseSuppression = !CommandLine.arguments.contains("--no-ns")
    settings.highPass = !CommandLine.arguments.contains("--no-high-pass")
    settings.autoGain = CommandLine.arguments.contains("--agc")
    if let tail = argument("--tail-ms").flatMap(Int.init) { settings.speexTailMs = tail }
}
let delaySamples = (argument("--delay-ms").flatMap(Int.init) ?? 0) * AudioPipe.sampleRate / 1000

let mic = readSamples(micPath)
let far = readSamples(farPath)
let frame = AudioPipe.samplesPerFrame
let frames = min(mic.count, far.count) / frame
let stage: VoiceProcessingStage
do { stage = try VoiceProcessingStage(settings: settings, reportedDelay: { delaySamples }) } catch { fail("\(error)") }

var output = [Int16](repeating: 0, count: frames * frame)
var farFrame = [Int16](repeating: 0, count: frame)
let cpuStart = threadCPUSeconds()
output.withUnsafeMutableBufferPointer { out in
    for index in 0..<frames {
        let range = index * frame..<(index + 1) * frame
        farFrame.withUnsafeMutableBufferPointer { played in
            for i in 0..<frame { played[i] = far[range.lowerBound + i] }
            stage.farEndPlayed(played)
        }
        let captured = UnsafeMutableBufferPointer(rebasing: out[range])
        for i in 0..<frame { captured[i] = mic[range.lowerBound + i] }
        stage.nearEndCaptured(captured)
    }
}
let cpuMicros = (threadCPUSeconds() - cpuStart) * 1e6 / Double(max(frames, 1))
stage.close()
FileManager.default.createFile(atPath: outPath, contents: output.withUnsafeBufferPointer { Data(buffer: $0) })

var result: [String: Any] = ["engine": engineName, "frames": frames, "cpu_us_per_frame": (cpuMicros * 10).rounded() / 10,
                             "cpu_percent_of_one_core": (cpuMicros / 20_000 * 100 * 1000).rounded() / 1000]
let figures = stage.statistics
if let erle = figures.erleDb { result["stage_erle_db"] = (erle * 10).rounded() / 10 }
if let erle = figures.engineErleDb { result["engine_erle_db"] = erle }
if let delay = figures.engineDelayMs { result["engine_delay_ms"] = delay }
result["engine_errors"] = figures.engineErrors
if CommandLine.arguments.contains("--opus-floor") {
    // The call's floor on the same frames: Opus encode of the microphone + decode, thread CPU.
    let encoder = try OpusEncoder(), decoder = try OpusDecoder()
    let start = threadCPUSeconds()
    mic.withUnsafeBufferPointer { all in
        for index in 0..<frames {
            let packet = (try? encoder.encode(UnsafeBufferPointer(rebasing: all[index * frame..<(index + 1) * frame]))) ?? []
            _ = packet.withUnsafeBytes { try? decoder.decode($0) }
        }
    }
    result["opus_floor_us_per_frame"] = ((threadCPUSeconds() - start) * 1e6 / Double(max(frames, 1)) * 10).rounded() / 10
}
print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
