import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// alsa-lib and libsoxr are opened on first use (Sources/CALSA, Sources/CSoxr), not at start: an
/// idle daemon maps neither them nor libsoxr's OpenMP runtime (libgomp), nor does an Opus call
/// between 48 kHz sources and sinks; a G.711 call (8 kHz, resampled) loads libsoxr and an `alsa:`
/// sink loads alsa-lib. A daemon that cannot load libsoxr fails the G.711 call with the loader's
/// reason and stays online.
@Suite(.serialized) struct LazyAudioLibrariesTests {
    typealias Kit = CallControlTests

    /// File-name prefixes of libsoxr and what only it pulls in.
    static let resampling = ["libsoxr.so", "libgomp.so"]
    /// File-name prefix of alsa-lib.
    static let alsa = "libasound.so"
    /// The voice processing engines (Sources/CEchoCancel), opened at the first call between sound devices.
    static let voiceProcessing = ["libwebrtc_audio_processing.so", "libspeexdsp.so"]

    /// A config that offers only PCMU, so the call runs G.711 (8 kHz) through the resampler.
    static func pcmuOnlyConfig(_ h: AgentHarness) throws -> String {
        let path = h.scratch.file("pcmu.conf")
        try "[media]\ncodecs = pcmu\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func mapped(_ names: Set<String>, _ prefix: String) -> Bool {
        names.contains { $0.hasPrefix(prefix) }
    }

    @Test func anIdleDaemonAndAnOpusCallMapNeitherLibrary() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Kit.audioFlags(h))
            let pid = try LazyLibniceTests.daemonPid(h)
            Thread.sleep(forTimeInterval: 0.5)
            let idle = try LazyLibniceTests.mappedFiles(pid)
            #expect(Self.mapped(idle, "libopus.so"), "linked libraries are mapped: \(idle.sorted())")
            // libmosquitto too: only an agent with `[push] mqtt` maps it (MQTTPushIntakeTests).
            for name in Self.resampling + [Self.alsa, "libmosquitto.so"] + Self.voiceProcessing {
                #expect(!Self.mapped(idle, name), "\(name) mapped while idle: \(idle.sorted())")
            }

            // Opus at 48 kHz between a tone and a recording: nothing to resample, no sound card.
            let opus = try LazyLibniceTests.callWithMedia(h, caller: "2000")
            let inOpusCall = try LazyLibniceTests.mappedFiles(pid)
            #expect(Self.mapped(inOpusCall, "libnice.so"), "\(inOpusCall.sorted())")
            for name in Self.resampling + [Self.alsa] + Self.voiceProcessing {
                #expect(!Self.mapped(inOpusCall, name), "\(name) mapped in an Opus call: \(inOpusCall.sorted())")
            }
            try h.emulator.control.hangup(callId: opus)
            #expect(try Kit.waitForRecord(h, opus).endResult == .completed)
        }
    }

    @Test func aG711CallToAnALSASinkLoadsLibsoxrAndAlsaLib() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: ["--config", try Self.pcmuOnlyConfig(h), "--answer", "auto", "--audio-source", "tone:880",
                                "--audio-sink", "alsa:null", "--media-address", "127.0.0.1"])
            let pid = try LazyLibniceTests.daemonPid(h)
            let idle = try LazyLibniceTests.mappedFiles(pid)
            for name in Self.resampling + [Self.alsa] {
                #expect(!Self.mapped(idle, name), "\(name) mapped while idle: \(idle.sorted())")
            }
            let call = try LazyLibniceTests.callWithMedia(h, caller: "2000")
            #expect(try h.emulator.control.call(call)?.media?.codec?.lowercased().contains("pcmu") == true)
            let inCall = try LazyLibniceTests.mappedFiles(pid)
            for name in Self.resampling + [Self.alsa] {
                #expect(Self.mapped(inCall, name), "\(name) not mapped in a G.711 call to alsa:null: \(inCall.sorted())")
            }
            try h.emulator.control.hangup(callId: call)
            #expect(try Kit.waitForRecord(h, call).endResult == .completed)
        }
    }

    @Test func withoutLibsoxrAG711CallFailsClearlyAndTheDaemonStaysOnline() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            let (brokenDir, environment) = try LazyLibniceTests.brokenLibrary("libsoxr.so.0", in: h)
            try h.start(extra: ["--config", try Self.pcmuOnlyConfig(h)] + Kit.audioFlags(h), environment: environment)

            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440")
            let record = try Kit.waitForRecord(h, ring.callId, timeout: 30)
            #expect(record.endResult == .failed)
            #expect(h.log().contains("resampler unavailable: cannot load libsoxr.so.0: \(brokenDir)/libsoxr.so.0"),
                    "\(h.log().suffix(3000))")
            #expect(h.log().contains("(install libsoxr0)"), "\(h.log().suffix(3000))")
            #expect(try h.status()["state"]?.stringValue == "online")
            #expect(h.daemon?.isRunning == true)
        }
    }

    /// `echo_cancel = auto` between two sound devices (ALSA's `null` both ways): the call opens the
    /// webrtc engine (and only it), `status` shows the stage's figures, and an idle daemon had
    /// mapped neither engine.
    @Test func aCallBetweenSoundDevicesOpensTheEchoCanceller() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: ["--answer", "auto", "--audio-source", "alsa:null", "--audio-sink", "alsa:null",
                                "--media-address", "127.0.0.1"])
            let pid = try LazyLibniceTests.daemonPid(h)
            let idle = try LazyLibniceTests.mappedFiles(pid)
            for name in Self.voiceProcessing {
                #expect(!Self.mapped(idle, name), "\(name) mapped while idle: \(idle.sorted())")
            }
            let call = try LazyLibniceTests.callWithMedia(h, caller: "2000")
            let inCall = try LazyLibniceTests.mappedFiles(pid)
            #expect(Self.mapped(inCall, "libwebrtc_audio_processing.so"), "\(inCall.sorted())")
            #expect(!Self.mapped(inCall, "libspeexdsp.so"), "\(inCall.sorted())")
            let voice = try #require(try h.status()["calls"]?[0]?["stats"]?["voice"])
            #expect(voice["engine"] == "webrtc" && voice["echo_cancel"] == true, "\(voice)")
            #expect(h.log().contains("voice processing webrtc: echo cancellation on, noise suppression on"), "\(h.log().suffix(2000))")
            try h.emulator.control.hangup(callId: call)
            #expect(try Kit.waitForRecord(h, call).endResult == .completed)
        }
    }
}
