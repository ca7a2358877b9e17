import AudioPipe
import FoundationEssentials
import MainLoop
import WCSSession

/// Opening a call's media with the configured audio, and turning media events into call events
/// and transitions. Part of the `CallManager` actor.
extension CallManager {
    func makeMedia(callId: String, controlling: Bool) throws -> (CallMedia, String?, VoiceProcessingStage?) {
        let source = try config.audioSource.open()
        let sink: (sink: AudioSink, recordingPath: String?)
        do { sink = try config.audioSink.open(callId: callId) } catch {
            source.close()
            throw error
        }
        var ice = ICEConfiguration(controlling: controlling,
                                  localAddresses: MediaAddresses.effective(configured: config.mediaAddresses, server: config.server))
        if let stun = config.stunServer {
            let parts = stun.split(separator: ":")
            ice.stunServer = ICEServerAddress(host: String(parts[0]), port: parts.count > 1 ? UInt16(parts[1]) ?? 3478 : 3478)
        }
        if let turn = config.turnServer, let user = config.turnUser, let password = config.turnPassword {
            let parts = turn.split(separator: ":")
            ice.turnServers = [TURNServer(host: String(parts[0]), port: parts.count > 1 ? UInt16(parts[1]) ?? 3478 : 3478,
                                          username: user, password: password,
                                          transport: TURNServer.Transport(rawValue: config.turnTransport) ?? .udp)]
        }
        ice.relayOnly = config.iceTransportPolicy == "relay"
        ice.includeLinkLocal = config.mediaLinkLocal
        var media = CallMediaConfiguration(ice: ice)
        media.includeCandidates = config.includeCandidates
        media.codecs = config.codecs.compactMap { AudioCodecKind(rawValue: $0) }
        let voice = voiceProcessing(callId: callId, source: source, sink: sink.sink)
        let stages: [any CallAudioStage] = (voice.map { [$0] } ?? []) + doorStages()
        return (CallMedia(configuration: media, source: source, sink: sink.sink, stages: stages), sink.recordingPath, voice)
    }

    /// The call's voice processing stage (`[audio] echo_cancel` and beside it), or nil when it would
    /// change nothing. An engine that cannot run is logged and the call goes on without it.
    private func voiceProcessing(callId: String, source: AudioSource, sink: AudioSink) -> VoiceProcessingStage? {
        guard let settings = config.voiceProcessing.settings(source: config.audioSource, sink: config.audioSink) else { return nil }
        let devices = (source as? AudioDeviceDelay, sink as? AudioDeviceDelay)
        do {
            let stage = try VoiceProcessingStage(settings: settings) {
                (devices.0?.delayFrames ?? 0) + (devices.1?.delayFrames ?? 0)
            }
            Log.info("calls", "call \(callId): voice processing \(settings.engine.rawValue): echo cancellation "
                + "\(settings.echoCancel ? "on" : "off"), noise suppression \(settings.noiseSuppression ? "on" : "off"), "
                + "auto gain \(settings.autoGain ? "on" : "off"), mic \(settings.micGainDb) dB, speaker \(settings.speakerGainDb) dB")
            return stage
        } catch {
            Log.error("calls", "call \(callId): \(error); the call goes on without echo cancellation or noise suppression")
            var gainsOnly = settings
            gainsOnly.echoCancel = false
            gainsOnly.noiseSuppression = false
            gainsOnly.autoGain = false
            gainsOnly.highPass = false
            return gainsOnly.isNeutral ? nil : try? VoiceProcessingStage(settings: gainsOnly)
        }
    }

    func watch(_ media: CallMedia, callId: String) {
        let events = media.events
        Task { [weak self, weak media] in
            for await event in events {
                await self?.mediaEvent(event, callId: callId, media: media)
            }
        }
    }

    private func mediaEvent(_ event: CallMediaEvent, callId: String, media: CallMedia?) {
        switch event {
        case .iceConnected(let pair):
            publish(.media(callId: callId, .iceConnected(pair: pair.map { "\($0.local.type)->\($0.remote.type)" } ?? "?")))
        case .dtlsConnected(let profile):
            publish(.media(callId: callId, .dtlsConnected(profile: profile)))
        case .firstAudioDecoded:
            // Both figures end when the frame was decoded (the audio thread's stamp), not when this runs.
            let decoded = media?.firstAudioTime
            let end = decoded.map { Date(timeIntervalSince1970: Double($0) / 1e6) } ?? Date()
            let latency = calls[callId]?.answerRequestedAt.map { end.timeIntervalSince($0) * 1000 }
            publish(.media(callId: callId, .firstAudio(latencyMs: latency.map { ($0 * 10).rounded() / 10 }, timeMicroseconds: decoded)))
        case .dtmfReceived(let digit):
            dtmfKey(digit, source: .rfc4733, callId: callId)
        case .dtmfToneDetected(let digit):
            dtmfKey(digit, source: .audio, callId: callId)
        case .mediaTimeout:
            guard calls[callId]?.state.isLive == true else { return }
            Log.warning("calls", "call \(callId): no audio from the far end; hanging up")
            publish(.mediaFailed(callId: callId, reason: "no media"))
            apply(callId, .failed, cause: .mediaFailure("no media"))
        case .failed(let failure):
            guard calls[callId]?.state.isLive == true else { return }
            let reason = failure.wcsInfo
            Log.error("calls", "call \(callId): media failed: \(reason) (\(failure))")
            publish(.mediaFailed(callId: callId, reason: reason))
            apply(callId, .failed, cause: .mediaFailure(reason))
        case .peerClosed:
            guard calls[callId]?.state.isLive == true else { return }
            let grace = Self.peerClosedGrace
            Log.notice("calls", "call \(callId): the far end closed its media (DTLS close_notify); "
                + "hanging up in \(grace) s unless the server ends the call first")
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(grace))
                await self?.hangUpAfterPeerClosedMedia(callId)
            }
        case .firstPacketReceived, .closed:
            break
        }
    }

    static func record(_ s: CallMediaStatistics) -> CallMediaRecord {
        CallMediaRecord(codec: s.codec?.rawValue, packetsSent: s.packetsSent, packetsReceived: s.packetsReceived,
                        packetsLost: s.packetsLost, jitterMs: (s.jitterMs * 10).rounded() / 10,
                        rttMs: s.roundTripTimeMs.map { ($0 * 10).rounded() / 10 })
    }

    /// A call's voice processing figures for `status`/`calls` (`stats.voice`).
    static func json(_ v: VoiceProcessingStatistics) -> JSONValue {
        let round = { (x: Double) in JSONValue.number((x * 10).rounded() / 10) }
        return .object([
            "engine": v.engine.map { .string($0) } ?? .null,
            "echo_cancel": .bool(v.echoCancel),
            "reported_delay_ms": round(v.reportedDelayMs),
            "engine_delay_ms": v.engineDelayMs.map { .number(Double($0)) } ?? .null,
            "erle_db": v.erleDb.map(round) ?? .null,
            "engine_erle_db": v.engineErleDb.map(round) ?? .null,
            "double_talk": .bool(v.doubleTalk),
            "far_end_active": .bool(v.farEndActive),
            "engine_errors": .number(Double(v.engineErrors)),
        ])
    }

    static func json(_ s: CallMediaStatistics) -> JSONValue {
        var o: [String: JSONValue] = [
            "packets_sent": .number(Double(s.packetsSent)), "packets_received": .number(Double(s.packetsReceived)),
            "packets_sent_direct": .number(Double(s.packetsSentDirect)),
            "bytes_sent": .number(Double(s.bytesSent)), "bytes_received": .number(Double(s.bytesReceived)),
            "packets_lost": .number(Double(s.packetsLost)), "jitter_ms": .number((s.jitterMs * 10).rounded() / 10),
            "frames_decoded": .number(Double(s.framesDecoded)), "concealed_frames": .number(Double(s.concealedFrames)),
            "fec_recovered_frames": .number(Double(s.framesRecoveredFEC)),
        ]
        o["codec"] = s.codec.map { .string($0.rawValue) } ?? .null
        o["rtt_ms"] = s.roundTripTimeMs.map { .number(($0 * 10).rounded() / 10) } ?? .null
        o["first_audio_ms"] = s.firstAudioLatency.map { .number(($0 * 10000).rounded() / 10) } ?? .null
        return .object(o)
    }
}
