import TestSupport
@testable import AudioPipe
import Foundation
import Testing

@Suite struct AudioIORawPCMTests {
    private func makePipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard count > 0 else { return }
            offset += count
        }
    }

    @Test func sourceReadsEverythingFromAPipe() throws {
        let ends = try makePipeEnds()
        let source = try RawPCMSource(fileDescriptor: ends.read, closeOnClose: true)
        var frame = [Int16](repeating: 7, count: 960)
        #expect(source.read(into: &frame) == 960)
        #expect(frame.allSatisfy { $0 == 0 }, "a starved source hands out silence")
        #expect(source.underruns >= 1)
        let samples = AudioIOTestSupport.nonZeroSamples(count: 9_601)
        writeAll(AudioIOTestSupport.bytes(samples) + [0x55], to: ends.write)   // a trailing odd byte is ignored
        close(ends.write)
        let received = AudioIOTestSupport.drain(source) { source.isAtEnd }
        #expect(received == samples)
        #expect(source.droppedSamples == 0)
        #expect(source.read(into: &frame) == 960, "after the end the source keeps sending silence")
        let underrunsAtEnd = source.underruns
        _ = source.read(into: &frame)
        #expect(source.underruns == underrunsAtEnd, "silence after the end is not an underrun")
        source.close()
        #expect(source.read(into: &frame) == 0)
    }

    @Test func sourceDropsOldestOnOverflowOrBlocks() throws {
        let samples = AudioIOTestSupport.nonZeroSamples(count: 20_000)
        for policy in [PCMOverflowPolicy.dropOldest, .block] {
            let ends = try makePipeEnds()
            let source = try RawPCMSource(fileDescriptor: ends.read, closeOnClose: true, bufferMilliseconds: 100, overflow: policy)
            writeAll(AudioIOTestSupport.bytes(samples), to: ends.write)       // fits in the 64 KiB pipe buffer
            close(ends.write)
            if policy == .dropOldest {
                #expect(eventually { source.droppedSamples == 20_000 - 4_800 })
                let received = AudioIOTestSupport.drain(source) { source.isAtEnd }
                #expect(received == Array(samples.suffix(4_800)), "the newest samples survive")
            } else {
                let received = AudioIOTestSupport.drain(source) { source.isAtEnd }
                #expect(received == samples)
                #expect(source.droppedSamples == 0)
            }
            source.close()
        }
    }

    @Test func sinkWritesIntoAPipe() throws {
        let ends = try makePipeEnds()
        let sink = try RawPCMSink(fileDescriptor: ends.write, closeOnClose: true)
        let samples = AudioIOTestSupport.nonZeroSamples(count: 960 * 20)
        for frame in TestSignal.frames(samples) { try sink.write(frame) }
        try sink.close()
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(ends.read, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        close(ends.read)
        #expect(AudioIOTestSupport.samples(bytes) == samples)
    }

    @Test func sinkFailsWhenTheReaderGoesAway() throws {
        let ends = try makePipeEnds()
        close(ends.read)
        let sink = try RawPCMSink(fileDescriptor: ends.write, closeOnClose: true)
        let failure = AudioIOTestSupport.firstWriteFailure(sink, frame: [Int16](repeating: 100, count: 960))
        #expect(failure == .sinkFailed("the reading end of the pipe was closed"))
        try sink.close()
    }

    @Test func sinkDropsOldestWhenTheReaderStalls() throws {
        let ends = try makePipeEnds()
        let sink = try RawPCMSink(fileDescriptor: ends.write, closeOnClose: true, bufferMilliseconds: 100)
        let frame = [Int16](repeating: 100, count: 960)
        for _ in 0..<100 { try sink.write(frame) }                        // 96 000 samples: pipe and buffer overflow
        #expect(eventually { sink.droppedSamples > 0 })
        try sink.close()                                                   // gives up draining after one second
        close(ends.read)
    }

    @Test func fifoCarriesAudioFromSinkToSource() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/audio.fifo"
        try #require(mkfifo(path, 0o600) == 0)
        let sink = try RawPCMSink(path: path)                              // no reader yet: must not block
        let samples = AudioIOTestSupport.nonZeroSamples(count: 960 * 10)
        let source = try RawPCMSource(path: path)
        for frame in TestSignal.frames(samples) { try sink.write(frame) }
        var received: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        #expect(eventually {
            _ = source.read(into: &frame)
            received += frame.filter { $0 != 0 }
            return received.count >= samples.count
        })
        #expect(received == samples)
        try sink.close()
        source.close()
    }

    @Test func badPathsAndSizesGiveClearErrors() throws {
        #expect(throws: AudioIOError.system(operation: "stat /nonexistent/in.raw", errno: ENOENT,
                                            message: "No such file or directory")) {
            try RawPCMSource(path: "/nonexistent/in.raw")
        }
        #expect(throws: AudioIOError.self) { try RawPCMSink(path: "/nonexistent/out.raw") }
        #expect(throws: AudioIOError.system(operation: "file descriptor 987", errno: EBADF, message: "Bad file descriptor")) {
            try RawPCMSink(fileDescriptor: 987)
        }
        #expect(throws: AudioIOError.invalidArgument("buffer length must be positive, got 0 ms")) {
            try RawPCMSource(fileDescriptor: 0, bufferMilliseconds: 0)
        }
    }
}
