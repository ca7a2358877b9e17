import AudioPipe
import Foundation
import MainLoop
import WCSSession

/// Answers and places calls with audio: joins the signaling (`WCSSession`) and the media
/// (`CallMedia`) of each call, applies the answer policy, and reports every step as an event.
actor CallManager {
    var config: AgentConfig
    let session: WCSSession
    let publish: @Sendable (String, [String: JSONValue]) -> Void
    var calls: [String: ManagedCall] = [:]
    private let journal: CallJournal
    private var hooks: CallHooks

    init(config: AgentConfig, session: WCSSession, publish: @escaping @Sendable (String, [String: JSONValue]) -> Void) {
        self.config = config
        self.session = session
        self.publish = publish
        journal = CallJournal(directory: config.stateDir)
        hooks = CallHooks(config: config)
    }

    /// Takes a reloaded configuration (SIGHUP): audio, answer mode and media settings apply from
    /// the next call on; calls in progress keep what they opened with.
    func reload(config: AgentConfig) {
        self.config = config
        hooks = CallHooks(config: config)
    }

    // MARK: - Signaling events

    func incoming(_ info: CallInfo) {
        if let known = calls[info.callId] {
            // A replay after a resume: the call is the same; only re-arm a lost answer timer.
            if known.media == nil { scheduleAutoAnswer(info.callId) }
            return
        }
        let live = calls.values.filter { !$0.status.isTerminal && !$0.rejectedAsBusy }.count
        calls[info.callId] = ManagedCall(callId: info.callId, direction: .incoming, status: info.status,
                                         caller: info.caller, callee: info.callee, displayName: info.visibleName)
        if live >= config.maxCalls {
            rejectAsBusy(info.callId, live: live)
            return
        }
        scheduleAutoAnswer(info.callId)
        runIncomingHook(info)
    }

    /// Declines a call at once because `max_calls` calls are already live; says so in an event.
    private func rejectAsBusy(_ callId: String, live: Int) {
        calls[callId]?.rejectedAsBusy = true
        let caller = calls[callId]?.caller
        Log.notice("calls", "call \(callId) from \(caller ?? "?") declined as busy: \(live) calls already (max_calls \(config.maxCalls))")
        publish("call_rejected", ["call_id": .string(callId), "reason": "busy", "caller": caller.map(JSONValue.string) ?? .null,
                                  "max_calls": .number(Double(config.maxCalls))])
        Task {
            do { try await session.hangup(callId: callId) } catch {
                Log.error("calls", "cannot decline busy call \(callId): \(error)")
            }
        }
    }

    /// Runs on_incoming concurrently with ringing; its output becomes the display name.
    private func runIncomingHook(_ info: CallInfo) {
        guard hooks.onIncoming != nil else { return }
        let hooks = self.hooks
        Task { [weak self] in
            guard let name = await hooks.incoming(callId: info.callId, caller: info.caller, callee: info.callee,
                                                  displayName: info.visibleName) else { return }
            await self?.setDisplayName(name, callId: info.callId)
        }
    }

    private func setDisplayName(_ name: String, callId: String) {
        guard calls[callId] != nil else { return }
        calls[callId]?.displayName = name
        calls[callId]?.displayNameFromHook = true
        publish("call_updated", ["call_id": .string(callId), "display_name": .string(name), "source": "on_incoming"])
    }

    func statusChanged(_ info: CallInfo) async {
        guard var call = calls[info.callId] else { return }
        call.status = info.status
        if info.status == .established, call.answeredAt == nil { call.answeredAt = Date() }
        if info.status == .hold || info.status == .established {
            let held = info.status == .hold
            if call.held != held {
                call.held = held
                publish("call_control", controlFields(call, action: held ? "held" : "resumed"))
            }
        }
        calls[info.callId] = call
        if info.status.isTerminal { finish(info.callId, status: info.status, info: info.info) }
    }

    func remoteSDP(callId: String, sdp: String) async {
        guard let call = calls[callId], call.direction == .outgoing, let media = call.media else { return }
        do {
            try media.applyAnswer(sdp)
        } catch {
            Log.error("calls", "call \(callId): the server's SDP answer is unusable: \(error)")
            calls[callId]?.mediaFailure = "\(error)"
            publish("media_failed", ["call_id": .string(callId), "reason": .string("\(error)")])
            try? await session.hangup(callId: callId)
        }
    }

    // MARK: - Verbs

    /// Answers `callId`, or the oldest ringing incoming call.
    func answer(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "answer") { $0.direction == .incoming && $0.media == nil && $0.status.isRinging && !$0.rejectedAsBusy }
        await holdOthers(except: id)
        guard let offer = await session.remoteSDP(for: id) else {
            throw AgentError("call \(id) has no SDP offer from the server")
        }
        let media: CallMedia
        do {
            let opened = try makeMedia(callId: id, controlling: false)
            media = opened.0
            calls[id]?.recordingPath = opened.1
        } catch {
            throw AgentError("call \(id): cannot open audio: \(error)")
        }
        calls[id]?.media = media
        calls[id]?.answerRequestedAt = Date()
        calls[id]?.answerTask?.cancel()
        watch(media, callId: id)
        do {
            let answer = try await media.answer(offer: offer)
            try await session.answer(callId: id, sdp: answer)
        } catch {
            Log.error("calls", "call \(id): cannot answer: \(error)")
            calls[id]?.mediaFailure = "cannot answer: \(error)"
            media.close()
            try? await session.hangup(callId: id)
            throw AgentError("call \(id): cannot answer: \(error)")
        }
        Log.info("calls", "answered call \(id)")
        return id
    }

    /// Declines a ringing incoming call.
    func decline(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "decline") { $0.direction == .incoming && $0.status.isRinging }
        calls[id]?.declined = true
        do { try await session.hangup(callId: id) } catch { throw AgentError("\(error)") }
        return id
    }

    /// Ends a call (talking first, then ringing or outgoing).
    func hangup(_ callId: String?) async throws(AgentError) -> String {
        let talking = callId == nil && calls.values.contains { $0.status == .established || $0.status == .hold }
        let id = try pick(callId, "hang up") { !$0.status.isTerminal && (!talking || $0.status == .established || $0.status == .hold) }
        if calls[id]?.answeredAt == nil { calls[id]?.hungUpByUs = true }
        do { try await session.hangup(callId: id) } catch { throw AgentError("\(error)") }
        return id
    }

    /// Places an outgoing call with the configured audio.
    func call(_ number: String) async throws(AgentError) -> String {
        let id = UUID().uuidString.lowercased()
        let media: CallMedia
        let recordingPath: String?
        do {
            (media, recordingPath) = try makeMedia(callId: id, controlling: true)
        } catch {
            throw AgentError("cannot open audio: \(error)")
        }
        calls[id] = ManagedCall(callId: id, direction: .outgoing, status: .pending, caller: nil, callee: number,
                                displayName: nil, media: media, answerRequestedAt: Date(), recordingPath: recordingPath)
        watch(media, callId: id)
        do {
            let offer = try await media.makeOffer()
            try await session.call(callee: number, sdp: offer, callId: id)
        } catch {
            media.close()
            calls[id] = nil
            throw AgentError("cannot call \(number): \(error)")
        }
        return id
    }

    /// Every call with media figures, for `status` and `calls`.
    func snapshot() -> [String: JSONValue] {
        calls.mapValues { call in
            var o: [String: JSONValue] = ["media": .bool(call.media != nil), "held": .bool(call.held),
                                          "muted": .bool(call.media?.isMuted ?? false)]
            if call.displayNameFromHook, let name = call.displayName { o["display_name"] = .string(name) }
            o["duration_seconds"] = call.answeredAt.map { .number((Date().timeIntervalSince($0) * 10).rounded() / 10) } ?? .null
            if let path = call.recordingPath { o["recording"] = .string(path) }
            if let media = call.media { o["stats"] = Self.json(media.statistics()) }
            return .object(o)
        }
    }

    // MARK: - Internals

    func pick(_ callId: String?, _ verb: String, _ eligible: (ManagedCall) -> Bool) throws(AgentError) -> String {
        if let callId {
            guard let call = calls[callId] else { throw AgentError("no call \(callId)") }
            guard eligible(call) else { throw AgentError("cannot \(verb) call \(callId): it is \(call.status.wire.lowercased())") }
            return callId
        }
        let candidates = calls.values.filter(eligible).sorted { $0.started < $1.started }
        if let first = candidates.first { return first.callId }
        if verb == "hang up", let any = calls.values.sorted(by: { $0.started < $1.started }).first { return any.callId }
        throw AgentError("no call to \(verb)")
    }

    private func scheduleAutoAnswer(_ callId: String) {
        let delay: Double
        switch config.answerMode {
        case .manual: return
        case .auto: delay = 0
        case .after(let s): delay = s
        }
        calls[callId]?.answerTask?.cancel()
        calls[callId]?.answerTask = Task { [weak self] in
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            guard !Task.isCancelled, let self else { return }
            do { _ = try await self.answer(callId) } catch {
                Log.warning("calls", "auto-answer of \(callId) failed: \(error)")
            }
        }
    }

    private func makeMedia(callId: String, controlling: Bool) throws -> (CallMedia, String?) {
        let source = try config.audioSource.open()
        let sink: (sink: AudioSink, recordingPath: String?)
        do { sink = try config.audioSink.open(callId: callId) } catch {
            source.close()
            throw error
        }
        var ice = ICEConfiguration(controlling: controlling, localAddresses: config.mediaAddresses)
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
        var media = CallMediaConfiguration(ice: ice)
        media.includeCandidates = config.includeCandidates
        media.codecs = config.codecs.compactMap { AudioCodecKind(rawValue: $0) }
        return (CallMedia(configuration: media, source: source, sink: sink.sink), sink.recordingPath)
    }

    private func watch(_ media: CallMedia, callId: String) {
        let events = media.events
        Task { [weak self] in
            for await event in events {
                await self?.mediaEvent(event, callId: callId)
            }
        }
    }

    private func mediaEvent(_ event: CallMediaEvent, callId: String) async {
        switch event {
        case .iceConnected(let pair):
            publish("media", ["call_id": .string(callId), "step": "ice_connected",
                              "pair": .string(pair.map { "\($0.local.type)->\($0.remote.type)" } ?? "?")])
        case .dtlsConnected(let profile):
            publish("media", ["call_id": .string(callId), "step": "dtls_connected", "profile": .string(profile)])
        case .firstAudioDecoded:
            let latency = calls[callId]?.answerRequestedAt.map { Date().timeIntervalSince($0) * 1000 }
            calls[callId]?.firstAudioAt = Date()
            publish("media", ["call_id": .string(callId), "step": "first_audio",
                              "latency_ms": latency.map { .number(($0 * 10).rounded() / 10) } ?? .null])
        case .dtmfReceived(let digit):
            publish("dtmf", ["call_id": .string(callId), "digit": .string(String(digit))])
        case .mediaTimeout:
            Log.warning("calls", "call \(callId): no audio from the far end; hanging up")
            calls[callId]?.mediaFailure = "no media"
            publish("media_failed", ["call_id": .string(callId), "reason": "no media"])
            try? await session.hangup(callId: callId)
        case .failed(let failure):
            let reason = failure.wcsInfo
            Log.error("calls", "call \(callId): media failed: \(reason) (\(failure))")
            calls[callId]?.mediaFailure = reason
            publish("media_failed", ["call_id": .string(callId), "reason": .string(reason)])
            try? await session.hangup(callId: callId)
        case .firstPacketReceived, .closed:
            break
        }
    }

    /// Ends these calls: the session that carried them is gone (a new session after a resume
    /// failed, or the token was refused). Each is recorded as connection_lost.
    func sessionLost(callIds: [String], reason: String) {
        for id in callIds where calls[id] != nil {
            calls[id]?.connectionLost = true
            finish(id, status: .finish, info: reason)
        }
    }

    func finish(_ callId: String, status: CallStatus, info: String?) {
        guard let call = calls.removeValue(forKey: callId) else { return }
        call.answerTask?.cancel()
        let ended = Date()
        var fields: [String: JSONValue] = ["call_id": .string(callId), "direction": .string(call.direction.rawValue),
                                           "status": .string(status.wire), "declined": .bool(call.declined)]
        if let info { fields["info"] = .string(info) }
        var stats: CallMediaStatistics?
        if let media = call.media {
            stats = media.statistics()
            media.close()
            fields["stats"] = Self.json(stats!)
        }
        if let path = call.recordingPath { fields["recording"] = .string(path) }
        if let answered = call.answeredAt { fields["duration_seconds"] = .number((ended.timeIntervalSince(answered) * 10).rounded() / 10) }
        let facts = CallEndFacts(direction: call.direction, status: status, info: info, answered: call.answeredAt != nil,
                                 declinedByUs: call.declined, rejectedAsBusy: call.rejectedAsBusy, hungUpByUs: call.hungUpByUs,
                                 mediaFailure: call.mediaFailure, connectionLost: call.connectionLost,
                                 ringSeconds: ended.timeIntervalSince(call.started), ringTimeout: config.ringTimeout)
        let result = CallEndClassifier.classify(facts)
        fields["end_result"] = .string(result.rawValue)
        if let name = call.displayName { fields["display_name"] = .string(name) }
        publish("call_ended", fields)
        let record = CallRecord(callId: callId, direction: call.direction.rawValue, caller: call.caller, callee: call.callee,
                                displayName: call.displayName, started: call.started, answered: call.answeredAt, ended: ended,
                                endResult: result, info: call.mediaFailure ?? info ?? (call.rejectedAsBusy ? "busy: max_calls reached" : nil),
                                media: stats.map(Self.record), recording: call.recordingPath)
        let hooks = self.hooks
        journal.write(record) { hooks.callEnded(record) }
    }

    static func record(_ s: CallMediaStatistics) -> CallMediaRecord {
        CallMediaRecord(codec: s.codec?.rawValue, packetsSent: s.packetsSent, packetsReceived: s.packetsReceived,
                        packetsLost: s.packetsLost, jitterMs: (s.jitterMs * 10).rounded() / 10,
                        rttMs: s.roundTripTimeMs.map { ($0 * 10).rounded() / 10 })
    }

    static func json(_ s: CallMediaStatistics) -> JSONValue {
        var o: [String: JSONValue] = [
            "packets_sent": .number(Double(s.packetsSent)), "packets_received": .number(Double(s.packetsReceived)),
            "bytes_sent": .number(Double(s.bytesSent)), "bytes_received": .number(Double(s.bytesReceived)),
            "packets_lost": .number(Double(s.packetsLost)), "jitter_ms": .number((s.jitterMs * 10).rounded() / 10),
            "frames_decoded": .number(Double(s.framesDecoded)), "concealed_frames": .number(Double(s.concealedFrames)),
        ]
        o["codec"] = s.codec.map { .string($0.rawValue) } ?? .null
        o["rtt_ms"] = s.roundTripTimeMs.map { .number(($0 * 10).rounded() / 10) } ?? .null
        o["first_audio_ms"] = s.firstAudioLatency.map { .number(($0 * 10000).rounded() / 10) } ?? .null
        return .object(o)
    }
}

/// One call the manager handles.
struct ManagedCall {
    enum Direction: String { case incoming, outgoing }
    var callId: String
    var direction: Direction
    var status: CallStatus
    var caller: String?
    var callee: String?
    var displayName: String?
    var media: CallMedia?
    var answerRequestedAt: Date?
    var answeredAt: Date?
    var firstAudioAt: Date?
    var recordingPath: String?
    var answerTask: Task<Void, Never>?
    var declined = false
    var started = Date()
    var held = false
    var rejectedAsBusy = false
    var hungUpByUs = false
    var mediaFailure: String?
    var connectionLost = false
    var displayNameFromHook = false
}
