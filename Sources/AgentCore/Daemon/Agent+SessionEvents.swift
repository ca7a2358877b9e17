import FoundationEssentials
import MainLoop
import WCSSession

/// Routing of session events by `Agent` (on the agent actor): connection events change the
/// connection lifecycle; call events go to `CallManager`, the one owner of calls; the rest are
/// published as they are.
extension Agent {
    func onSessionEvent(_ event: SessionEvent) async {
        switch event {
        case .stateChanged(let s):
            publishEvent(.sessionState(s.rawValue))
        case .disconnected(let reason):
            publishEvent(.disconnected(reason: reason.description))
            guard reason.isUnexpected, phase == .online else { return }
            let callUp = await !callManager.list().isEmpty  // a call needs its signaling back now: no spread
            guard phase == .online else { return }  // something else took over meanwhile
            callUpHint = callUp
            connectedSince = nil
            lastError = reason.description
            Log.warning("agent", "lost the connection (\(reason)); resuming by token")
            if movedAfter(reason) { return }
            scheduleRetry(after: ReconnectCause(reason))
        case .registrationFailed(let status, let info):
            publishEvent(.registrationFailed(.reported(status: status, info: info)))
            registrationLostWhileOnline(status: status, info: info)
        case .incomingCall(let info, let offer, let replayed):
            announced(info.callId)
            await callManager.incoming(info, offer: offer, replayed: replayed)
            callAnnouncedWhileFallingAsleep(info.callId)
        case .callStatus(let info):
            await callManager.statusChanged(info)
        case .remoteSDP(let callId, let sdp):
            await callManager.remoteSDP(callId: callId, sdp: sdp)
        case .transfer(let callId, let status, let info):
            publishEvent(.transfer(callId: callId, status: status, info: info))
        case .dataEvent(let payload):
            publishEvent(.data(payload: payload))
        case .dtmf(let callId, let digits, _):
            await callManager.relayedDTMF(digits, callId: callId)
        case .dataStatus(let operationId, let status, let info):
            publishEvent(.dataStatus(operationId: operationId, status: status, info: info))
        case .sessionDebug(let status, let file):
            publishEvent(.serverDebug(status: status, file: file))
        case .warning(let text):
            publishEvent(.warning(message: text))
        }
    }

    /// The calls of a lost server session are gone: record them as connection_lost.
    func loseCalls(_ reason: String) {
        let manager = callManager, lostAt = Date()
        Task { await manager.sessionLost(reason: reason, lostAt: lostAt) }
    }
}
