import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The emulator starts, answers its control API, and dies when killed.
@Suite struct EmulatorSmokeTests {
    @Test func startsEmptyAnswersControlAndDiesOnKill() throws {
        let emulator = try EmulatorProcess(users: ["1001": "secret"])
        #expect(emulator.url == "ws://127.0.0.1:\(emulator.port)")
        #expect(try emulator.control.sessions().isEmpty)
        #expect(try emulator.control.get("/health")["ok"]?.boolValue == true)
        #expect(try emulator.control.config()["users"] == ["1001"])

        let ring = try emulator.control.ring(login: "1001", caller: "2000")
        #expect(ring.state == "failed")
        #expect(ring.reason == "not_registered")

        emulator.kill()
        #expect(!emulator.isRunning)
        #expect(kill(emulator.pid, 0) == -1)
    }

    @Test func controlErrorsAreThrownWithStatusAndMessage() throws {
        let emulator = try EmulatorProcess()
        #expect(throws: TestSupportError.http(status: 404, message: "no such call")) {
            try emulator.control.hangup(callId: "missing")
        }
        #expect(throws: TestSupportError.self) {
            try emulator.control.setConfig(["ping_interval": -1])
        }
    }
}

/// The emulator starts with its WebRTC engine (aiortc) and records into the helper's scratch directory.
@Suite struct EmulatorWebRTCSmokeTests {
    @Test func loadsWebRTCEngineAndRecordsIntoItsScratchDirectory() throws {
        let emulator = try EmulatorProcess(media: .webrtc)
        #expect(try emulator.control.config()["media"] == "aiortc")
        #expect(try emulator.control.config()["record_dir"]?.stringValue == emulator.recordDirectory)
    }
}
