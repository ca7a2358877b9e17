"""Connection admission and the attempt log: `--max-connections-per-second` and GET /attempts.

Every WebSocket that opens is one connection attempt. The admission limit counts the sockets admitted
in the last second; one beyond it is refused: the emulator reads its first frame (to learn who it was,
for the log), then closes it with 1013 "Try Again Later", as a WCS that sheds load would. Each attempt is
logged with its time, what it was (fresh login, token resume, refused token, ...) and the SIP login
behind it. A resume carries only a token, so the log remembers which login every token it ever issued
belonged to (a real server forgets on restart; the log does not, so fleet runs can count per agent).
"""
from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import Any, Dict, List, Optional

import websockets

from . import frames

log = logging.getLogger("wcsemu.admission")

#: How many attempts the log keeps.
ATTEMPT_LOG_SIZE = 200000

#: How long a refused socket may take to send its first frame before it is closed anyway.
REFUSED_FIRST_FRAME_WAIT = 1.0

#: The close code and reason for a refused socket (RFC 6455 1013: try again later).
TRY_AGAIN_LATER = (1013, "Try again later")


def peak_per_second(times: List[float]) -> int:
    """The largest number of `times` (seconds, any order) inside any window of one second."""
    ordered = sorted(times)
    peak, first = 0, 0
    for last, moment in enumerate(ordered):
        while moment - ordered[first] >= 1.0:
            first += 1
        peak = max(peak, last - first + 1)
    return peak


class Admission:
    """Decides whether a new socket is admitted and keeps the attempt log (runs on the asyncio loop)."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.recent: collections.deque = collections.deque()  # admission times within the last second
        self.attempts: collections.deque = collections.deque(maxlen=ATTEMPT_LOG_SIZE)
        self.by_conn: Dict[int, Dict[str, Any]] = {}
        self.token_logins: Dict[str, Optional[str]] = {}

    def on_open(self, conn) -> bool:
        """Logs a new socket as an attempt; returns False when the admission limit refuses it."""
        now = time.time()
        limit = self.emulator.settings.max_connections_per_second
        while self.recent and now - self.recent[0] >= 1.0:
            self.recent.popleft()
        admitted = limit == 0 or len(self.recent) < limit
        if admitted:
            self.recent.append(now)
        entry = {"time": now, "conn": conn.number, "admitted": admitted, "kind": "open", "login": None}
        self.attempts.append(entry)
        self.by_conn[conn.number] = entry
        return admitted

    async def refuse(self, conn, by_fault: bool = False) -> None:
        """Reads the refused socket's first frame (bounded wait), logs who it was, closes with 1013.

        `by_fault`: refused by the close_1013_next fault (wcsemu.faults), not by the limit."""
        try:
            text = await asyncio.wait_for(conn.ws.recv(), REFUSED_FIRST_FRAME_WAIT)
            name, arg = frames.decode(text) if isinstance(text, str) else (None, None)
            if name == "connection":
                self._classify(conn, arg)
        except (asyncio.TimeoutError, websockets.ConnectionClosed, frames.FrameError):
            pass
        entry = self.by_conn.pop(conn.number, None)
        if entry is not None and by_fault:
            entry["admitted"] = False
        log.info("%r refused by %s (%s): closing with 1013", conn,
                 "fault close_1013_next" if by_fault else "the admission limit", entry["login"] if entry else "?")
        try:
            await conn.ws.close(*TRY_AGAIN_LATER)
        except websockets.ConnectionClosed:
            pass

    def on_connection(self, conn, arg: Any) -> None:
        """Logs what an admitted socket's `connection` message asks for (before it is handled)."""
        if conn.session is None:
            self._classify(conn, arg)

    def after_connection(self, conn) -> None:
        """Remembers the token of the session the `connection` message produced."""
        entry = self.by_conn.pop(conn.number, None)
        session = conn.session
        if session is not None:
            self.token_logins[session.token] = session.login
            if entry is not None and entry["login"] is None:
                entry["login"] = session.login

    def _classify(self, conn, arg: Any) -> None:
        entry = self.by_conn.get(conn.number)
        if entry is None:
            return
        obj = arg if isinstance(arg, dict) else {}
        token = obj.get("authToken")
        login = obj.get("sipLogin") if isinstance(obj.get("sipLogin"), str) else None
        if isinstance(token, str) and token:
            known = token in self.emulator.sessions.by_token
            entry["kind"] = "resume" if known else (
                "token_refused" if self.emulator.settings.bad_token in ("fail", "close") else "token_new_session")
            login = login or self.token_logins.get(token)
        else:
            entry["kind"] = "login"
        entry["login"] = login

    def view(self, since: float = 0.0) -> Dict[str, Any]:
        """GET /attempts: counts since `since` (epoch seconds), peak rate, per login, and the log."""
        found = [dict(a) for a in self.attempts if a["time"] >= since]
        per_login: Dict[str, int] = collections.Counter(a["login"] or "?" for a in found)
        kinds: Dict[str, int] = collections.Counter(a["kind"] for a in found)
        return {"total": len(found), "admitted": sum(1 for a in found if a["admitted"]),
                "refused": sum(1 for a in found if not a["admitted"]),
                "peak_per_second": peak_per_second([a["time"] for a in found]),
                "first": found[0]["time"] if found else None, "last": found[-1]["time"] if found else None,
                "by_kind": dict(kinds), "per_login": dict(per_login), "attempts": found}
