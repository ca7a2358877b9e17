import AudioPipe
import FoundationEssentials
import MainLoop
import SystemSupport
import WCSJSON

/// Calls that end on time (`[limits]`: a warning tone `warning` seconds before `max_call_time`,
/// an `extend` action adds `extend_by`), and announcements played into a call (`[announce]`,
/// `wcs-agent play`). Part of the `CallManager` actor.
extension CallManager {
    /// The audio stages every call gets: the prompt player (tones, announcements) and, with
    /// `[dtmf] in_audio`, the in-audio DTMF detector.
    func doorStages() -> [any CallAudioStage] {
        var stages: [any CallAudioStage] = [CallPromptStage()]
        if config.door.detectInAudio { stages.append(DTMFToneDetectorStage()) }
        return stages
    }

    /// The call is established (answered, or resumed): arms its time limit once and plays the
    /// announcement on answer once.
    func callEstablished(_ callId: String) {
        guard let call = calls[callId], !call.door.established else { return }
        calls[callId]?.door.established = true
        let door = config.door
        if let limit = door.maxCallTime {
            calls[callId]?.door.deadline = MonotonicTime.now() + limit
            armLimit(callId)
        }
        if door.announceOnAnswer, let file = door.announceFile {
            do { try announce(file, mode: door.announceMode, callId: callId) } catch {
                Log.warning("actions", "call \(callId): cannot play the announcement \(file): \(error)")
            }
        }
    }

    /// (Re)starts the timer to the call's deadline: the warning tone, then the hang-up.
    private func armLimit(_ callId: String) {
        guard let deadline = calls[callId]?.door.deadline else { return }
        calls[callId]?.door.limitTask?.cancel()
        let warning = config.door.warningBefore
        calls[callId]?.door.limitTask = Task { [weak self] in
            let untilWarning = deadline - warning - MonotonicTime.now()
            if warning > 0, untilWarning > -warning {
                if untilWarning > 0 { try? await Task.sleep(for: .seconds(untilWarning)) }
                guard !Task.isCancelled, let self else { return }
                await self.limitWarning(callId)
            }
            let untilEnd = deadline - MonotonicTime.now()
            if untilEnd > 0 { try? await Task.sleep(for: .seconds(untilEnd)) }
            guard !Task.isCancelled, let self else { return }
            await self.limitReached(callId)
        }
    }

    private func limitWarning(_ callId: String) {
        guard calls[callId]?.state.isLive == true else { return }
        Log.info("actions", "call \(callId): \(Int(config.door.warningBefore)) s left (maximum call time); warning tone")
        playTone(.warning, callId: callId)
        noteAction(callId, action: nil, result: "time_warning", source: nil, keys: nil,
                   detail: "\(config.door.warningBefore) s before the maximum call time")
    }

    private func limitReached(_ callId: String) async {
        guard calls[callId]?.state.isLive == true else { return }
        Log.notice("actions", "call \(callId): maximum call time reached; hanging up")
        noteAction(callId, action: nil, result: "time_limit", source: nil, keys: nil, detail: "maximum call time reached")
        do { _ = try await hangup(callId) } catch {
            Log.warning("actions", "call \(callId): cannot hang up at the time limit: \(error)")
        }
    }

    /// `extend`: moves the deadline `extend_by` seconds later; false when the call has no limit.
    func extendLimit(_ callId: String) -> Bool {
        guard let deadline = calls[callId]?.door.deadline else { return false }
        calls[callId]?.door.deadline = deadline + config.door.extendBy
        armLimit(callId)
        Log.info("actions", "call \(callId): call time extended by \(Int(config.door.extendBy)) s")
        return true
    }

    /// Plays the WAV `file` into `callId` (or the oldest talking call), mixed with or replacing
    /// the source. Throws `AgentError` for a missing call or an unreadable file.
    @discardableResult
    func announce(_ file: String, mode: CallPromptStage.Mode, callId: String?) throws(AgentError) -> String {
        let id = try pick(callId, "play into") { $0.media != nil && $0.state.isLive }
        guard let prompt = calls[id]?.media?.stage(of: CallPromptStage.self) else { throw AgentError("call \(id) has no audio") }
        let samples: [Int16]
        do { samples = try WAVReader.read48kMono(path: file) } catch {
            throw AgentError("cannot play \(file): \(error)")
        }
        prompt.play(samples, mode: mode)
        Log.info("actions", "call \(id): playing \(file) (\((Double(samples.count) / 4_800).rounded() / 10) s, \(mode.rawValue))")
        return id
    }
}
