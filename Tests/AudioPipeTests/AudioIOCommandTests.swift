import TestSupport
@testable import AudioPipe
import Foundation
import Testing

@Suite struct AudioIOCommandTests {
    @Test func catOfAFileIsReadCompletely() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/input.raw"
        let samples = AudioIOTestSupport.nonZeroSamples(count: 24_000)
        try AudioIOTestSupport.write(AudioIOTestSupport.bytes(samples), to: path)
        let source = try CommandSource(command: "/bin/cat '\(path)'")
        let received = AudioIOTestSupport.drain(source) { source.isAtEnd }
        #expect(received == samples)
        #expect(source.waitForExit(timeout: 10) == .exited(0))
        var frame = [Int16](repeating: 1, count: 960)
        #expect(source.read(into: &frame) == 960 && frame.allSatisfy { $0 == 0 }, "silence after the command exits")
        source.close()
    }

    @Test func headPipelineStopsAfterItsBytes() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/input.raw"
        let samples = AudioIOTestSupport.nonZeroSamples(count: 24_000)
        try AudioIOTestSupport.write(AudioIOTestSupport.bytes(samples), to: path)
        let source = try CommandSource(command: "cat '\(path)' | head -c 19200")
        let received = AudioIOTestSupport.drain(source) { source.isAtEnd }
        #expect(received == Array(samples.prefix(9_600)))
        #expect(source.waitForExit(timeout: 10) == .exited(0))
        source.close()
    }

    @Test func sinkFeedsCatIntoAFile() throws {
        let directory = try AudioIOTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/output.raw"
        let sink = try CommandSink(command: "cat > '\(path)'")
        let samples = AudioIOTestSupport.nonZeroSamples(count: 960 * 50)
        for frame in TestSignal.frames(samples) { try sink.write(frame) }
        try sink.close()
        #expect(sink.exitStatus == .exited(0), "closing stdin lets cat finish on its own")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(AudioIOTestSupport.samples(written) == samples)
    }

    @Test func missingCommandReportsStatus127() throws {
        let source = try CommandSource(command: "wcs-agent-no-such-audio-command-xyz")
        let status = source.waitForExit(timeout: 10)
        #expect(status == .exited(127))
        #expect(status?.description == "exited with status 127 (command not found)")
        var frame = [Int16](repeating: 1, count: 960)
        #expect(source.read(into: &frame) == 960 && frame.allSatisfy { $0 == 0 })
        source.close()

        let sink = try CommandSink(command: "wcs-agent-no-such-audio-command-xyz")
        let failure = AudioIOTestSupport.firstWriteFailure(sink, frame: frame)
        #expect(failure == .sinkFailed("the reading end of the pipe was closed; the command exited with status 127 (command not found)"))
        try sink.close()
    }

    @Test func closeTerminatesThenKills() throws {
        let polite = try CommandSource(command: "exec sleep 30")
        polite.close()
        #expect(polite.exitStatus == .signaled(SIGTERM))

        let stubborn = try CommandSource(command: "trap '' TERM; sleep 30; sleep 30")
        usleep(200_000)                                                    // let the shell install its trap
        stubborn.close()
        #expect(stubborn.exitStatus == .signaled(SIGKILL))
    }
}
