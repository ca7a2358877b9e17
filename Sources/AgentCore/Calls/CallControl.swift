import AudioPipe
import FoundationEssentials
import MainLoop
import WCSSession

/// In-call verbs: hold, resume, mute, unmute, DTMF, transfer, and the call list.
extension CallManager {
    /// Puts a talking call on hold (`callId`, or the oldest talking one).
    func hold(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "hold") { $0.state == .established }
        do { try await session.hold(callId: id) } catch { throw AgentError("\(error)") }
        return id
    }

    /// Takes a held call off hold (`callId`, or the oldest held one).
    func resume(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "resume") { $0.state == .held }
        await holdOthers(except: id)
        do { try await session.unhold(callId: id) } catch { throw AgentError("\(error)") }
        return id
    }

    /// Mutes or unmutes our audio of a call (silence is sent instead of the source).
    func setMuted(_ muted: Bool, _ callId: String?) throws(AgentError) -> String {
        let verb = muted ? "mute" : "unmute"
        let id = try pick(callId, verb) { $0.media != nil && $0.state.isLive }
        guard let call = calls[id], let media = call.media else { throw AgentError("call \(id) has no audio") }
        media.isMuted = muted
        Log.info("calls", "call \(id) \(muted ? "muted" : "unmuted")")
        publish(.callControl(controlChange(call, id: id, action: muted ? "muted" : "unmuted")))
        return id
    }

    /// Sends DTMF `digits` on a talking call. `.rfc2833` goes in-band through our media when
    /// telephone-event was negotiated, else through the server (logged as a warning).
    func dtmf(_ digits: String, method: DTMFMethod, _ callId: String?) async throws(AgentError) -> [String: JSONValue] {
        let allowed = Set("0123456789*#ABCDabcd")
        guard !digits.isEmpty, digits.allSatisfy(allowed.contains) else {
            throw AgentError("invalid DTMF digits \"\(digits)\": use 0-9, *, #, A-D")
        }
        let id = try pick(callId, "send DTMF on") { $0.state.isTalking }
        var via = "server_info"
        if method == .rfc2833 {
            via = "in_band"
            if let media = calls[id]?.media, media.negotiated?.telephoneEventPT != nil {
                do { try media.sendDTMF(digits) } catch {
                    Log.warning("calls", "call \(id): in-band DTMF failed (\(error)); asking the server to send RFC2833")
                    via = "server_rfc2833"
                }
            } else {
                Log.warning("calls", "call \(id): no telephone-event negotiated; asking the server to send RFC2833 DTMF")
                via = "server_rfc2833"
            }
        }
        if via != "in_band" {
            do { try await session.sendDTMF(callId: id, digits: digits, type: method == .info ? .info : .rfc2833) } catch {
                throw AgentError("\(error)")
            }
        }
        var change = controlChange(calls[id], id: id, action: "dtmf")
        change.digits = digits
        change.via = via
        publish(.callControl(change))
        return ["call_id": .string(id), "digits": .string(digits), "via": .string(via)]
    }

    /// Blind transfer: holds the call for transfer, waits (up to 5 s) for the server's HOLD, then
    /// transfers it to `target`. Progress arrives as `transfer` events.
    func transfer(to target: String, _ callId: String?) async throws(AgentError) -> String {
        guard !target.isEmpty else { throw AgentError("transfer needs a target") }
        let id = try pick(callId, "transfer") { $0.state.isTalking }
        do {
            if calls[id]?.state != .held { try await session.hold(callId: id, forTransfer: true) }
            for _ in 0..<50 where calls[id]?.state != .held {
                try? await Task.sleep(for: .milliseconds(100))
            }
            guard calls[id] != nil else { throw AgentError("call \(id) ended before the transfer") }
            try await session.transfer(callId: id, target: target)
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError("\(error)")
        }
        Log.info("calls", "call \(id): transfer to \(target) requested")
        var change = controlChange(calls[id], id: id, action: "transfer")
        change.target = target
        publish(.callControl(change))
        return id
    }

    /// Holds every talking call but `callId` (answering or resuming one call holds the others).
    func holdOthers(except callId: String) async {
        for other in calls.values where other.callId != callId && other.state == .established {
            do {
                try await session.hold(callId: other.callId)
                Log.info("calls", "call \(other.callId) put on hold for call \(callId)")
            } catch {
                Log.warning("calls", "cannot hold call \(other.callId): \(error)")
            }
        }
    }

    /// A `call_control` event: the call's id, the action, and its mute and hold state.
    func controlChange(_ call: CallEntry?, id: String, action: String) -> CallControlChange {
        CallControlChange(callId: call?.callId ?? id, action: action, held: call?.state == .held,
                          muted: call?.media?.isMuted ?? false)
    }
}
