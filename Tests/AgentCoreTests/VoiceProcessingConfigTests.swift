import TestSupport
import AudioPipe
import Testing
@testable import AgentCore

/// `[audio] echo_cancel`, `noise_suppression`, `auto_gain`, `mic_gain_db`, `speaker_gain_db`,
/// `echo_engine`: parsed, refused with the line when wrong, resolved per call against the source
/// and sink (`auto`: on between sound devices only), and a reload counts them as live.
struct VoiceProcessingConfigTests {
    let dir = ScratchDirectory()

    func load(_ audio: String) throws -> AgentConfig {
        let path = dir.write("agent.conf", "[server]\nurl = ws://127.0.0.1:8080\n[audio]\n" + audio)
        return try ConfigLoader.load(arguments: ["--config", path], environment: [:])
    }

    @Test func defaultsCancelEchoOnlyBetweenSoundDevices() throws {
        let config = try load("")
        let voice = config.voiceProcessing
        #expect(voice.echoCancel == .auto && voice.noiseSuppression == .auto && !voice.autoGain && voice.engine == .webrtc)
        let devices = try #require(voice.settings(source: .alsa("default"), sink: .alsa("default")))
        #expect(devices.echoCancel && devices.noiseSuppression && devices.highPass && devices.engine == .webrtc)
        // A microphone playing to a recording: noise suppression, no echo to cancel.
        let micOnly = try #require(voice.settings(source: .alsa("default"), sink: .record("/tmp")))
        #expect(!micOnly.echoCancel && micOnly.noiseSuppression)
        // Files, tones, pipes: nothing to process, no stage.
        #expect(voice.settings(source: .tone(440), sink: .alsa("default")) == nil)
        #expect(voice.settings(source: .silence, sink: .null) == nil)
    }

    @Test func explicitSettingsAndGains() throws {
        let config = try load("""
            echo_cancel = on
            noise_suppression = off
            auto_gain = yes
            mic_gain_db = 6
            speaker_gain_db = -3.5
            echo_engine = speex
            """)
        let settings = try #require(config.voiceProcessing.settings(source: .tone(440), sink: .null))
        #expect(settings.echoCancel && !settings.noiseSuppression && settings.autoGain && settings.engine == .speex)
        #expect(settings.micGainDb == 6 && settings.speakerGainDb == -3.5)
        let off = try load("echo_cancel = off\nnoise_suppression = off\n")
        #expect(off.voiceProcessing.settings(source: .alsa("a"), sink: .alsa("b")) == nil)
        let gainOnly = try #require(try load("echo_cancel = off\nnoise_suppression = off\nmic_gain_db = 3\n")
            .voiceProcessing.settings(source: .alsa("a"), sink: .alsa("b")))
        #expect(!gainOnly.echoCancel && !gainOnly.highPass && gainOnly.micGainDb == 3)
    }

    @Test func badValuesAreRefusedWithTheirLine() throws {
        for (text, expected) in [("echo_cancel = maybe", "expected auto, on or off"), ("mic_gain_db = 40", "decibels from -30 to 30"),
                                 ("speaker_gain_db = loud", "decibels from -30 to 30"), ("echo_engine = aec3", "webrtc or speex")] {
            #expect {
                _ = try load(text)
            } throws: { error in
                "\(error)".contains(expected) && "\(error)".contains("agent.conf:4:")
            }
        }
    }

    @Test func aReloadAppliesVoiceProcessingLive() throws {
        let before = try load("")
        let after = try load("speaker_gain_db = -6\n")
        let plan = ConfigReloadPlan(running: before, loaded: after)
        #expect(plan.live.contains("[audio] voice processing"))
        #expect(plan.reconnect.isEmpty && plan.relogin.isEmpty)
    }
}
