@testable import MediaBenchmarks
import TestSupport
@testable import AudioPipe
import Foundation
import Testing

@Suite struct AudioIOWAVTests {
    @Test func writtenFileReadsBackIdentical() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/call.wav"
        let samples = AudioIOTestSupport.nonZeroSamples(count: 960 * 75 + 123)
        let sink = try WAVFileSink(path: path)
        try samples.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 960) {
                try sink.write(UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + 960)]))
            }
        }
        try sink.close()
        try sink.close()                                        // idempotent
        #expect(throws: AudioIOError.closed) { try sink.write([1, 2, 3]) }
        let reader = try WAVReader(path: path)
        #expect(reader.format == WAVFormat.internalFormat)
        #expect(reader.frameCount == samples.count)
        #expect(try reader.samples48kMono() == samples)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? Int) == 44 + samples.count * 2)
    }

    @Test func headerIsRefreshedWhileRecording() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/live.wav"
        let sink = try WAVFileSink(path: path, bufferMilliseconds: 5_000)
        try sink.write(AudioIOTestSupport.nonZeroSamples(count: 48_000 * 2 + 500))
        #expect(eventually { sink.samplesWritten == 48_000 * 2 + 500 })
        let image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let declared = Int(image[40]) | Int(image[41]) << 8 | Int(image[42]) << 16 | Int(image[43]) << 24
        #expect((192_000...193_000).contains(declared), "the header covers the first two seconds before close")
        #expect(try WAVReader(bytes: image).frameCount == declared / 2)
        try sink.close()
        #expect(try WAVReader(path: path).frameCount == 96_500)
    }

    @Test func stereo44kFileReadsAs48kMonoTone() throws {
        let tone = TestSignal.sine(frequency: 1_000, amplitude: 0.4, count: 44_100, sampleRate: 44_100, channelGains: [1, 0.5])
        for extensible in [false, true] {
            let image = AudioIOTestSupport.wavImage(channels: 2, sampleRate: 44_100, bits: 16,
                                                    data: AudioIOTestSupport.bytes(tone), extensible: extensible)
            let reader = try WAVReader(bytes: image)
            #expect(reader.format.channels == 2 && reader.format.sampleRate == 44_100)
            #expect(abs(reader.duration - 1) < 1e-9)
            let samples = try reader.samples48kMono()
            #expect(abs(samples.count - 48_000) <= 2)
            let levels = AudioLevels.measure(Array(samples[4_800..<43_200]))
            let pitch = try #require(levels.dominantFrequency)
            #expect(abs(pitch - 1_000) <= 2)
            #expect(abs(levels.rmsDBFS - 20 * log10(0.4 * 0.75 / 2.squareRoot())) < 0.5, "channels averaged: \(levels)")
        }
    }

    @Test func unsupportedAndBrokenFilesAreRejectedClearly() throws {
        let pcm = [UInt8](repeating: 1, count: 480)
        func rejection(_ image: [UInt8]) -> WAVError? {
            do { _ = try WAVReader(bytes: image); return nil } catch { return error as? WAVError }
        }
        let float = rejection(AudioIOTestSupport.wavImage(tag: 3, channels: 1, sampleRate: 48_000, bits: 32, data: pcm))
        #expect(float == .unsupportedEncoding(tag: 3, name: "IEEE float"))
        #expect(float?.description.contains("only 16-bit integer PCM") == true)
        let extensibleFloat = rejection(AudioIOTestSupport.wavImage(tag: 3, channels: 2, sampleRate: 48_000, bits: 32,
                                                                   data: pcm, extensible: true))
        #expect(extensibleFloat == .unsupportedEncoding(tag: 3, name: "IEEE float"))
        #expect(rejection(AudioIOTestSupport.wavImage(tag: 7, channels: 1, sampleRate: 8_000, bits: 8, data: pcm))
                == .unsupportedEncoding(tag: 7, name: "µ-law"))
        for bits in [8, 24, 32] {
            let error = rejection(AudioIOTestSupport.wavImage(channels: 1, sampleRate: 48_000, bits: bits, data: pcm))
            #expect(error == .unsupportedBitDepth(bits))
            #expect(error?.description == "unsupported \(bits)-bit PCM; only 16-bit PCM is supported")
        }
        let good = AudioIOTestSupport.wavImage(channels: 1, sampleRate: 48_000, bits: 16, data: pcm)
        #expect(rejection(AudioIOTestSupport.wavImage(channels: 1, sampleRate: 48_000, bits: 16, data: pcm,
                                                      declaredDataBytes: 4_800))
                == .truncated("the data chunk declares 4800 bytes but only 480 are present"))
        #expect(rejection(Array(good[0..<30])) == .truncated("the file ends inside a chunk (at byte 30, chunk walk reached 24)"))
        #expect(rejection(Array(good[0..<40]))?.description == "truncated WAV file: the 'fmt ' chunk runs past the end of the file")
        #expect(rejection(Array(good[0..<8])) == .truncated("8 bytes, shorter than a RIFF header"))
        #expect(rejection(Array("OggS0000WAVE".utf8)) == .notWAV("starts with 'OggS'"))
        #expect(rejection(Array(good[0..<(good.count - pcm.count - 8)])) == .missingChunk("data"))
        #expect(rejection(AudioIOTestSupport.wavImage(channels: 0, sampleRate: 48_000, bits: 16, data: pcm))
                == .invalidFormat("zero channels"))
        #expect(throws: WAVError.self) { try WAVReader(path: "/nonexistent/file.wav") }
        do {
            _ = try WAVReader(path: "/nonexistent/file.wav")
        } catch {
            #expect("\(error)" == "cannot read WAV file /nonexistent/file.wav: No such file or directory")
        }
    }

    @Test func streamedHeaderReadsToEndOfFile() throws {
        let samples = AudioIOTestSupport.nonZeroSamples(count: 1_000)
        for declared in [0, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            let image = AudioIOTestSupport.wavImage(channels: 1, sampleRate: 48_000, bits: 16,
                                                    data: AudioIOTestSupport.bytes(samples), declaredDataBytes: declared)
            #expect(try WAVReader(bytes: image).samples48kMono() == samples)
        }
    }

    @Test func fileSourcePlaysOnceOrLoops() throws {
        let samples = AudioIOTestSupport.nonZeroSamples(count: 2_000)
        let once = WAVFileSource(samples: samples)
        var frame = [Int16](repeating: 0, count: 960)
        #expect(once.read(into: &frame) == 960)
        #expect(once.read(into: &frame) == 960)
        #expect(once.read(into: &frame) == 80)
        #expect(Array(frame[0..<80]) == Array(samples[1_920...]))
        #expect(once.read(into: &frame) == 0)
        let looping = WAVFileSource(samples: samples, loop: true)
        var played: [Int16] = []
        for _ in 0..<5 {
            #expect(looping.read(into: &frame) == 960)
            played += frame
        }
        #expect(Array(played[2_000..<4_000]) == samples)
        looping.close()
        #expect(looping.read(into: &frame) == 0)
    }
}
