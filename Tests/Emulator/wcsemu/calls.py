"""Call flows: simulated incoming INVITEs, the client's outgoing calls, answer, hold, DTMF, transfer, hangup."""
from __future__ import annotations
import re

import asyncio
import json
import logging
import time
from typing import Any, Dict, List, Optional

from . import call_variants
from .model import ENDED, ESTABLISHED, FAILED, HELD, LIVE_STATES, RINGING, TRYING, Call
from .sdp import MediaError

log = logging.getLogger("wcsemu.calls")

NORMAL_CLEARING = "Normal call clearing"
REQUEST_TIMEOUT = "Failed by request timeout"
CALLEE_BEHAVIORS = ("answer", "busy", "fail", "noanswer")


class CallManager:
    """Every call the emulator has seen (ended ones stay listed), plus per-number callee behaviours."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.calls: Dict[str, Call] = {}
        self.callees: Dict[str, Dict[str, Any]] = {}

    # -- helpers ---------------------------------------------------------------------------------

    def all(self) -> List[Call]:
        """All calls, oldest first."""
        return list(self.calls.values())

    def _conn_of(self, call: Call):
        session = self.emulator.sessions.by_id.get(call.session_id)
        return session.conn if session is not None else None

    async def _send(self, call: Call, name: str, args: List[Any]) -> bool:
        """Sends a frame for the call to its session's socket; False if it was not delivered."""
        conn = self._conn_of(call)
        if conn is None:
            log.info("call %s: %s not delivered (session detached or gone)", call.id, name)
            return False
        return await conn.send(name, args)

    async def _status(self, call: Call, name: str, status: str, info: Optional[str] = None) -> None:
        await self._send(call, name, [call.status_object(status, info)])

    def _owned_call(self, conn, obj: Any, action: str, states=LIVE_STATES) -> Optional[Call]:
        """The call named by obj.callId if it belongs to conn's session and is in `states`, else None."""
        call_id = obj.get("callId") if isinstance(obj, dict) else None
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        if call is None or call.session_id != conn.session.id:
            log.warning("%r %s for unknown callId %r ignored", conn, action, call_id)
            return None
        if call.state not in states:
            log.warning("%r %s for call %s in state %s ignored", conn, action, call.id, call.state)
            return None
        return call

    def behavior_for(self, number: str) -> Dict[str, Any]:
        """How the fake SIP callee `number` reacts (POST /callee), default: answer after answer_delay."""
        return self.callees.get(number, {"behavior": "answer", "delay": None})

    def _later(self, call: Call, delay: float, coroutine_fn, *args) -> None:
        """Runs coroutine_fn(*args) after `delay` seconds unless the call ends first."""
        async def run():
            await asyncio.sleep(delay)
            await coroutine_fn(*args)
        call.timers.append(asyncio.create_task(run()))

    @staticmethod
    def _cancel_timers(call: Call) -> None:
        """Cancels the call's pending timers (except the one running now, if any)."""
        current = asyncio.current_task()
        for timer in call.timers:
            if timer is not current:
                timer.cancel()
        call.timers.clear()

    async def finish(self, call: Call, status: str, info: Optional[str], reason: str,
                     notify: bool = True) -> None:
        """Ends a live call: `finish {status, info}` to the client (if attached), then media release."""
        if not call.live:
            return
        call.state = ENDED
        call.finish_status, call.finish_info, call.end_reason = status, info, reason
        call.ended_at = time.time()
        self._cancel_timers(call)
        log.info("call %s ended: %s (%s, %s)", call.id, status, info, reason)
        self.emulator.delivery.on_ended(call)
        if notify:
            obj = call.status_object(status, info)
            if not await self._send(call, "finish", [obj]):
                self.emulator.variants.remember_finish(call, obj)
        await self.emulator.engine.stop(call)

    def on_media_failure(self, call: Call, info: str) -> None:
        """Engine callback: the WebRTC leg failed (ICE, DTLS); the call fails with `info`."""
        if call.live:
            asyncio.get_running_loop().create_task(self.finish(call, "FAILED", info, "media_failed"))

    # -- incoming calls (SIP side, via the control API) -------------------------------------------

    async def ring(self, login: str, caller: str, display_name: Optional[str], source: Optional[str],
                   ring_timeout: Optional[float], fault: Optional[str] = None,
                   offer_fault: Optional[str] = None, no_finish: bool = False,
                   external_offer: Optional[str] = None, call_id: Optional[str] = None) -> Call:
        """A simulated INVITE from `caller` to `login`; returns the call (state ringing or failed).

        With `external_offer` the caller's media runs outside the emulator (wcsemu.media_external)."""
        settings = self.emulator.settings
        call = Call(id=call_variants.incoming_call_id(settings, call_id), direction="incoming", login=login,
                    caller=caller, callee=login, visible_name=call_variants.display_name(settings, display_name, caller),
                    source=source or self.emulator.settings.media_source, fault=fault,
                    offer_fault=offer_fault, no_finish=no_finish, external_offer=external_offer)
        self.calls[call.id] = call
        session = self.emulator.sessions.registered_for(login)
        if session is None:
            call.state, call.end_reason, call.ended_at = FAILED, "not_registered", time.time()
            reason = self.emulator.delivery.no_route(call)
            log.info("INVITE %s -> %s: no registered session (%s), call %s failed", caller, login, reason, call.id)
            return call
        call.session_id = session.id
        session.call_ids.append(call.id)
        try:
            call.offer_sdp = inject_offer_fault(await self.emulator.engine.make_offer(call), fault)
        except MediaError as error:
            call.state, call.end_reason, call.finish_info = FAILED, "media_failed", error.info
            call.ended_at = time.time()
            log.warning("call %s: no offer: %s", call.id, error)
            await self.emulator.engine.stop(call)
            return call
        if not call.live:  # the session was destroyed while the offer was being made
            await self.emulator.engine.stop(call)
            return call
        timeout = ring_timeout or self.emulator.settings.ring_timeout
        if not call.no_finish:
            self._later(call, timeout, self._ring_timed_out, call)
        log.info("INVITE %s -> %s: call %s (session %s, %s)", caller, login, call.id, session.id,
                 "attached" if session.conn else "detached: push")
        if session.conn is not None:
            await self._announce(call, session.conn)
            self.emulator.call_variants.after_announce(call, self)
        else:
            call.pushed = True
            self.emulator.push.send(call, session)
        return call

    async def _announce(self, call: Call, conn) -> None:
        self.emulator.delivery.on_announced(call)
        spoiled = spoiled_offer_frame(call.id, call.offer_fault)
        if spoiled is not None:
            await conn.send_raw(spoiled)
        elif call.offer_fault != "none":
            await conn.send("setRemoteSDP", [call.id, call.offer_sdp])
        await conn.send("notifyIncomingCall", [call.status_object("RING")])
        await conn.send("ring", [call.status_object("RING")])

    async def replay_ringing(self, session, conn) -> None:
        """After a token resume: announce again every incoming call of the session still ringing."""
        for call_id in list(session.call_ids):
            call = self.calls.get(call_id)
            if call is not None and call.incoming and call.state == RINGING:
                log.info("call %s replayed to %r", call.id, conn)
                await self._announce(call, conn)
                self.emulator.call_variants.after_announce(call, self)

    async def _ring_timed_out(self, call: Call) -> None:
        if call.state == RINGING:
            await self.finish(call, "FINISH", NORMAL_CLEARING, "missed")

    async def sip_hangup(self, call: Call) -> None:
        """The SIP peer hangs up (BYE, or CANCEL while ringing)."""
        await self.finish(call, "FINISH", NORMAL_CLEARING, "remote_hangup")

    async def on_answer(self, conn, obj: Any) -> None:
        """Client `answer {callId, sdp}` for a ringing incoming call."""
        named = self.calls.get(obj.get("callId")) if isinstance(obj, dict) and isinstance(obj.get("callId"), str) else None
        if named is not None:
            named.answers += 1
        call = self._owned_call(conn, obj, "answer", states=(RINGING,))
        if call is None or not call.incoming:
            return
        try:
            await self.emulator.engine.take_answer(call, inject_answer_fault(obj.get("sdp"), call.fault))
        except MediaError as error:
            log.warning("call %s: answer rejected: %s", call.id, error)
            await self.finish(call, "FAILED", error.info, "media_failed")
            return
        if not call.live:  # hung up while the answer was being applied
            return
        call.answer_sdp = obj.get("sdp")
        self._established(call)
        await self._status(call, "talk", "ESTABLISHED")
        self.emulator.call_variants.after_answer(call, self)

    def _established(self, call: Call) -> None:
        call.state, call.answered_at = ESTABLISHED, time.time()
        self._cancel_timers(call)

    # -- outgoing calls (the client's `call`) -----------------------------------------------------

    async def on_call(self, conn, obj: Any) -> None:
        """Client `call {callId, callee, sdp, ...}`: answer SDP, TRYING, RING, then the callee's behaviour."""
        if not isinstance(obj, dict):
            log.warning("%r 'call' without an object ignored", conn)
            return
        call_id, callee = obj.get("callId"), obj.get("callee")
        if not isinstance(call_id, str) or not call_id or call_id in self.calls:
            log.warning("%r 'call' with missing or reused callId %r ignored", conn, call_id)
            return
        if not isinstance(callee, str) or not callee:
            log.warning("%r 'call' %s without callee ignored", conn, call_id)
            return
        session = conn.session
        caller = obj.get("caller") if isinstance(obj.get("caller"), str) and obj.get("caller") else session.login
        call = Call(id=call_id, direction="outgoing", login=session.login, caller=caller or "",
                    callee=callee, visible_name=obj.get("visibleName") or caller or "",
                    session_id=session.id, state=TRYING, offer_sdp=obj.get("sdp"),
                    source=self.emulator.settings.media_source)
        self.calls[call.id] = call
        session.call_ids.append(call.id)
        try:
            call.answer_sdp = await self.emulator.engine.answer_offer(call, obj.get("sdp"))
        except MediaError as error:
            log.warning("call %s: offer rejected: %s", call.id, error)
            await self.finish(call, "FAILED", error.info, "media_failed")
            return
        if not call.live:  # the SIP side gave up while the answer was being made
            return
        await self._send(call, "setRemoteSDP", [call.id, call.answer_sdp])
        await self._status(call, "notifyTryingResponse", "TRYING")
        if not call.live:
            return
        call.state = RINGING
        await self._status(call, "ring", "RING")
        behavior = self.behavior_for(callee)
        delay = behavior["delay"] if behavior["delay"] is not None else self.emulator.settings.answer_delay
        if behavior["behavior"] != "noanswer":
            self._later(call, delay, self._callee_reacts, call, behavior["behavior"])

    async def _callee_reacts(self, call: Call, behavior: str) -> None:
        if call.state != RINGING:
            return
        if behavior == "answer":
            self._established(call)
            await self._status(call, "talk", "ESTABLISHED")
        elif behavior == "busy":
            await self.finish(call, "BUSY", None, "busy")
        elif behavior == "fail":
            await self.finish(call, "FAILED", REQUEST_TIMEOUT, "callee_failed")

    # -- in-call requests ------------------------------------------------------------------------

    async def on_hangup(self, conn, obj: Any) -> None:
        """Client `hangup`: decline, cancel or end; always confirmed with `finish FINISH`."""
        call = self._owned_call(conn, obj, "hangup")
        if call is None:
            return
        call.hangups += 1
        if call.no_finish:
            log.info("call %s: hangup #%d recorded; no_finish, so no finish is sent", call.id, call.hangups)
            return
        if call.state in (RINGING, TRYING):
            reason = "declined" if call.incoming else "canceled"
        else:
            reason = "local_hangup"
        await self.finish(call, "FINISH", NORMAL_CLEARING, reason)

    async def on_hold(self, conn, obj: Any) -> None:
        """Client `hold {callId[, holdForTransfer]}` -> `hold {status: HOLD}`."""
        call = self._owned_call(conn, obj, "hold", states=(ESTABLISHED, HELD))
        if call is None:
            return
        call.state = HELD
        call.hold_for_transfer = obj.get("holdForTransfer") is True
        await self._status(call, "hold", "HOLD")

    async def on_unhold(self, conn, obj: Any) -> None:
        """Client `unhold` -> `talk {status: ESTABLISHED}`."""
        call = self._owned_call(conn, obj, "unhold", states=(HELD, ESTABLISHED))
        if call is None:
            return
        call.state, call.hold_for_transfer = ESTABLISHED, False
        await self._status(call, "talk", "ESTABLISHED")

    async def on_dtmf(self, conn, obj: Any) -> None:
        """Client `sendDtmf {callId, type, dtmf}`: recorded on the call, no reply (as WCS)."""
        call = self._owned_call(conn, obj, "sendDtmf")
        if call is None:
            return
        call.dtmf_events.append({"type": obj.get("type") or "RFC2833", "dtmf": obj.get("dtmf"),
                                 "time": time.time()})

    async def on_transfer(self, conn, obj: Any) -> None:
        """Client `transfer {callId, target}`: ACCEPTED, TRYING, then COMPLETED + finish (or FAILED)."""
        call = self._owned_call(conn, obj, "transfer", states=(ESTABLISHED, HELD))
        if call is None:
            return
        target = obj.get("target")
        if not isinstance(target, str) or not target:
            log.warning("%r transfer of %s without target ignored", conn, call.id)
            return
        call.transfer_target = target
        works = self.behavior_for(target)["behavior"] == "answer"
        for status in ("ACCEPTED", "TRYING", "COMPLETED" if works else "FAILED"):
            call.transfer_status = status
            await self._send(call, "notifyTransferEvent", [{"callId": call.id, "status": status,
                                                            "target": target, "incoming": call.incoming}])
        if works:
            await self.finish(call, "FINISH", NORMAL_CLEARING, "transferred")

    # -- session events --------------------------------------------------------------------------

    async def on_session_detached(self, session) -> None:
        """The session's socket went away (kept session): ringing calls wait; others per --detached-calls."""
        if self.emulator.settings.detached_calls != "end":
            return
        for call_id in list(session.call_ids):
            call = self.calls.get(call_id)
            if call is None or not call.live or (call.incoming and call.state == RINGING):
                continue
            await self.finish(call, "FINISH", NORMAL_CLEARING, "socket_lost")

    async def end_for_session(self, session, reason: str) -> None:
        """The session is destroyed: all its live calls end."""
        for call_id in list(session.call_ids):
            call = self.calls.get(call_id)
            if call is not None and call.live:
                await self.finish(call, "FINISH", NORMAL_CLEARING, reason)


OFFER_FAULTS = ("none", "null", "object", "non_utf8", "deep", "garbage")


def spoiled_offer_frame(call_id: str, offer_fault: Optional[str]) -> Optional[str]:
    """The raw `setRemoteSDP` text frame for an offer fault (POST /ring {"offer"}), or None when the
    offer is sent normally (no fault) or not at all (`none`). `null` and `object` put a JSON null or an
    object where the SDP string belongs; `non_utf8` a string holding a lone UTF-16 surrogate (not
    Unicode, so not UTF-8); `deep` an array nested 10000 levels deep; `garbage` a string that is not SDP."""
    quoted = json.dumps(call_id)
    if offer_fault == "garbage":
        return '{"message":"setRemoteSDP","data":[%s,"this is not an SDP offer"]}' % quoted
    if offer_fault == "null":
        return '{"message":"setRemoteSDP","data":[%s,null]}' % quoted
    if offer_fault == "object":
        return '{"message":"setRemoteSDP","data":[%s,{"type":"offer","sdp":{"v":0}}]}' % quoted
    if offer_fault == "non_utf8":
        return '{"message":"setRemoteSDP","data":[%s,"v=0\\r\\n\\udc80"]}' % quoted
    if offer_fault == "deep":
        return '{"message":"setRemoteSDP","data":[%s,%s%s]}' % (quoted, "[" * 10000, "]" * 10000)
    return None


def inject_offer_fault(sdp: str, fault: Optional[str]) -> str:
    """Media faults for tests (POST /ring {"fault"}): `fingerprint` advertises a fingerprint that is
    not our certificate's; `unreachable` advertises our candidates on a port nobody listens on."""
    if fault == "fingerprint":
        def forge(match):
            digest = match.group(2)
            flipped = ("00" if digest[:2] != "00" else "11") + digest[2:]
            return match.group(1) + flipped
        return re.sub(r"(a=fingerprint:\S+ )([0-9A-Fa-f:]+)", forge, sdp)
    if fault == "unreachable":
        return re.sub(r"(a=candidate:\S+ \d+ \S+ \d+ \S+ )(\d+)", lambda m: m.group(1) + "9", sdp)
    return sdp


def inject_answer_fault(sdp, fault: Optional[str]):
    """With `unreachable`, the client's candidates are ignored too, so neither side can reach the other."""
    if fault == "unreachable" and isinstance(sdp, str):
        return "".join(line for line in sdp.splitlines(keepends=True)
                       if not line.startswith(("a=candidate:", "a=end-of-candidates")))
    return sdp
