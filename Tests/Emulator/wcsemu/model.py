"""Session and Call records, their wire objects and their control-API views."""
from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
import uuid
from typing import Any, Dict, List, Optional


def new_id() -> str:
    """A fresh UUID string (session ids, call ids and call uuids)."""
    return str(uuid.uuid4())


#: Prefix of every issued token (`--name NAME` makes it `NAME.`; wcsemu.tokens).
TOKEN_PREFIX = ""


def new_token() -> str:
    """A fresh opaque auth token: 32 hex digits, after the node's TOKEN_PREFIX."""
    return TOKEN_PREFIX + secrets.token_hex(16)


@dataclasses.dataclass(eq=False)
class Session:
    """A WCS session: created by `connection`, possibly kept (keepAlive) after its socket goes away."""

    login: Optional[str]
    fields: Dict[str, Any]
    keep_alive: bool
    id: str = dataclasses.field(default_factory=new_id)
    token: str = dataclasses.field(default_factory=new_token)
    registered: bool = False
    conn: Any = None  # the attached ClientConnection, None while detached
    created: float = dataclasses.field(default_factory=time.time)
    detached_at: Optional[float] = None
    expires_at: Optional[float] = None
    expiry: Optional[asyncio.TimerHandle] = None
    call_ids: List[str] = dataclasses.field(default_factory=list)
    alive: bool = True
    pending_finishes: List[Dict[str, Any]] = dataclasses.field(default_factory=list)  # --detached-finish replay

    @property
    def connected(self) -> bool:
        """True while a socket is attached."""
        return self.conn is not None

    def user_data(self) -> Dict[str, Any]:
        """The `getUserData` object: the stored connection fields plus token, id and status."""
        data = dict(self.fields)
        data.update(authToken=self.token, sessionId=self.id, status="ESTABLISHED")
        return data

    def view(self) -> Dict[str, Any]:
        """The control-API view (GET /sessions)."""
        return {
            "id": self.id, "token": self.token, "login": self.login, "connected": self.connected,
            "registered": self.registered, "keepAlive": self.keep_alive, "calls": list(self.call_ids),
            "created": self.created, "detached_at": self.detached_at,
            "expires_in": None if self.expires_at is None else max(0.0, self.expires_at - time.time()),
            "remote": self.conn.remote if self.conn else None,
        }


#: Call states (control API `state`).
RINGING, TRYING, ESTABLISHED, HELD, ENDED, FAILED = "ringing", "trying", "established", "held", "ended", "failed"
LIVE_STATES = (RINGING, TRYING, ESTABLISHED, HELD)


@dataclasses.dataclass(eq=False)
class Call:
    """One SIP-bridged call, incoming (a simulated INVITE) or outgoing (the client's `call`)."""

    id: str
    direction: str  # "incoming" | "outgoing"
    login: Optional[str]
    caller: str
    callee: str
    visible_name: str
    session_id: Optional[str] = None
    uuid: str = dataclasses.field(default_factory=new_id)
    state: str = RINGING
    end_reason: Optional[str] = None
    finish_status: Optional[str] = None
    finish_info: Optional[str] = None
    offer_sdp: Optional[str] = None
    answer_sdp: Optional[str] = None
    dtmf_events: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    hold_for_transfer: bool = False
    transfer_target: Optional[str] = None
    transfer_status: Optional[str] = None
    pushed: bool = False
    source: Optional[str] = None
    fault: Optional[str] = None  # media fault to inject: fingerprint | unreachable (POST /ring)
    external_offer: Optional[str] = None  # the SIP side's own offer: media runs outside (media_external)
    offer_fault: Optional[str] = None  # how the offer is spoiled: none | null | object | non_utf8 | deep
    no_finish: bool = False  # never send `finish` (client hangups are counted, ring timeout off)
    hangups: int = 0  # client `hangup` frames received for this call
    answers: int = 0  # client `answer` frames received for this call (taken or not)
    answered_elsewhere: bool = False  # another device answered it (call_variants --answered-elsewhere)
    duplicate_notifies: int = 0  # late notifyIncomingCall re-sent (call_variants --duplicate-notify)
    created: float = dataclasses.field(default_factory=time.time)
    answered_at: Optional[float] = None
    ended_at: Optional[float] = None
    timers: List[Any] = dataclasses.field(default_factory=list)  # TimerHandles / Tasks to cancel at end
    media: Any = None  # the media engine's per-call state

    @property
    def incoming(self) -> bool:
        return self.direction == "incoming"

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    def status_object(self, status: str, info: Optional[str] = None) -> Dict[str, Any]:
        """The data[0] object of a call status message (ring, talk, hold, finish, ...)."""
        obj = {"callId": self.id, "status": status, "caller": self.caller, "callee": self.callee,
               "incoming": self.incoming, "visibleName": self.visible_name, "hasVideo": False,
               "hasAudio": True, "mediaProvider": "WebRTC", "uuid": self.uuid}
        if info is not None:
            obj["info"] = info
        return obj

    def view(self) -> Dict[str, Any]:
        """The control-API view (GET /calls), without media statistics."""
        return {
            "callId": self.id, "uuid": self.uuid, "session": self.session_id, "login": self.login,
            "direction": self.direction, "caller": self.caller, "callee": self.callee,
            "visibleName": self.visible_name, "state": self.state, "end_reason": self.end_reason,
            "finish_status": self.finish_status, "finish_info": self.finish_info,
            "dtmf": "".join(str(e.get("dtmf", "")) for e in self.dtmf_events),
            "dtmf_events": list(self.dtmf_events), "hold_for_transfer": self.hold_for_transfer,
            "transfer_target": self.transfer_target, "transfer_status": self.transfer_status,
            "pushed": self.pushed, "offer_sdp": self.offer_sdp, "answer_sdp": self.answer_sdp,
            "answer_sdp_present": self.answer_sdp is not None, "source": self.source,
            "created": self.created, "answered_at": self.answered_at, "ended_at": self.ended_at,
            "offer_fault": self.offer_fault, "no_finish": self.no_finish, "hangups": self.hangups,
            "answers": self.answers, "answered_elsewhere": self.answered_elsewhere,
            "duplicate_notifies": self.duplicate_notifies,
        }
