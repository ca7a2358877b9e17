"""Server variants: behaviours a real WCS may show where the protocol notes leave the point open.

docs/wcs-protocol.md §5 and §10 list what no public source settles: whether `registered` is sent again
after a token resume (open question 3), whether the token rotates (question 2), message order, what an
unknown token gets (§5.2), the fate of calls that end while the socket is detached (question 14). The
emulator's standard answers are its defaults; the flags in variant_settings.py switch each one to the
other plausible behaviour so that a client can be tested against all of them. README "Server variants"
documents each flag.

Runs on the emulator's asyncio loop (like everything in wcsemu), so it needs no locks.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

log = logging.getLogger("wcsemu.variants")

#: The registration success frame.
REGISTERED_FRAME: Tuple[str, List[Any]] = ("registered", [{"status": "REGISTERED"}])


class ServerVariants:
    """Plays the variant chosen in Settings at each point where the protocol is open."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.resume_drops_done = 0
        self._delayed: set = set()  # connections whose `connection` waits out --connection-delay

    @property
    def settings(self):
        return self.emulator.settings

    def on_config_change(self, changes: Dict[str, Any]) -> None:
        """POST /config: a new resume-drop setting restarts the count of dropped resumes."""
        if "resume_drop_ms" in changes or "resume_drop_count" in changes:
            self.resume_drops_done = 0

    # -- `connection`: delay --------------------------------------------------------------------

    async def on_connection(self, conn, obj: Any, handler: Callable[[Any, Any], Awaitable[None]]) -> None:
        """Passes the client's `connection` to handler, after --connection-delay seconds if set.

        The socket keeps being served while the answer waits (pings, pongs); a second `connection`
        meanwhile is ignored, and nothing is answered if the socket closed in between.
        """
        self._spend_presented_token(conn, obj)
        delay = self.settings.connection_delay
        if delay <= 0:
            await handler(conn, obj)
            return
        if conn in self._delayed or conn.session is not None:
            log.warning("%r second 'connection' on the same socket ignored", conn)
            return
        self._delayed.add(conn)
        log.info("%r 'connection' will be answered in %.2f s", conn, delay)

        async def answer_later() -> None:
            try:
                await asyncio.sleep(delay)
                if conn.closed:
                    log.info("%r closed before its delayed 'connection' answer", conn)
                    return
                await handler(conn, obj)
            finally:
                self._delayed.discard(conn)
        asyncio.create_task(answer_later())

    # -- login and resume replies ---------------------------------------------------------------

    async def send_login_reply(self, conn, session, registration: Optional[Tuple[str, List[Any]]]) -> None:
        """getUserData, and the registration outcome (if any) after or before it (--registered-order)."""
        await self._send_ordered(conn, session, registration, after_user_data=None)

    async def send_resume_reply(self, conn, session) -> None:
        """The answer to a token resume: the token rotated or not, getUserData, `registered` again or
        not, a scheduled drop (--resume-drop-ms), then the `finish` of calls that ended while detached
        (--detached-finish replay). The caller replays still-ringing calls after this."""
        if self.settings.resume_token == "rotate":
            self.emulator.sessions.rotate_token(session)
            log.info("session %s: token rotated on resume (the old one no longer works)", session.id)
        # resume_token once: rotated already when the token was presented (_spend_presented_token)
        registration = None
        if self.settings.resume_registered == "yes" and session.registered:
            registration = REGISTERED_FRAME
        await self._send_ordered(conn, session, registration, after_user_data=self._maybe_drop)
        await self._replay_finishes(conn, session)

    async def _send_ordered(self, conn, session, registration, after_user_data) -> None:
        frames = [("getUserData", [self.user_data(session)])]
        if registration is not None:
            if self.settings.registered_order == "before":
                frames.insert(0, registration)
            else:
                frames.append(registration)
        for name, args in frames:
            await conn.send(name, args)
            if name == "getUserData" and after_user_data is not None:
                after_user_data(conn)

    def _maybe_drop(self, conn) -> None:
        delay_ms = self.settings.resume_drop_ms
        if delay_ms is None:
            return
        limit = self.settings.resume_drop_count
        if limit and self.resume_drops_done >= limit:
            return
        self.resume_drops_done += 1
        log.info("%r will be dropped %.0f ms after the resume's getUserData (drop %d)", conn, delay_ms,
                 self.resume_drops_done)
        asyncio.get_running_loop().call_later(delay_ms / 1000.0, self._drop, conn)

    @staticmethod
    def _drop(conn) -> None:
        if not conn.closed:
            log.info("%r resume drop: TCP dropped without a close frame", conn)
            conn.abort()

    # -- calls that end while detached ----------------------------------------------------------

    def remember_finish(self, call, obj: Dict[str, Any]) -> None:
        """A call's `finish` could not be delivered: keep it for the resume (--detached-finish replay)."""
        if self.settings.detached_finish != "replay":
            return
        session = self.emulator.sessions.by_id.get(call.session_id)
        if session is None or not session.alive or not session.keep_alive:
            return
        session.pending_finishes.append(obj)
        log.info("call %s: finish kept for the resume of session %s", call.id, session.id)

    async def _replay_finishes(self, conn, session) -> None:
        pending, session.pending_finishes = session.pending_finishes, []
        for obj in pending:
            log.info("call %s: finish replayed to %r", obj.get("callId"), conn)
            await conn.send("finish", [obj])

    def user_data(self, session) -> Dict[str, Any]:
        """The session's getUserData object, without `sessionId` with --session-id omit."""
        data = session.user_data()
        if self.settings.session_id == "omit":
            data.pop("sessionId", None)
        return data

    def _spend_presented_token(self, conn, obj: Any) -> None:
        """--resume-token once: a token is spent the moment a `connection` presents it: the session
        gets a new one at once (sent in getUserData, if the resume gets that far); the presented one
        never works again, even when the socket dies before the answer."""
        if self.settings.resume_token != "once" or not isinstance(obj, dict):
            return
        token = obj.get("authToken")
        session = self.emulator.sessions.by_token.get(token) if isinstance(token, str) else None
        if session is None:
            return
        self.emulator.sessions.rotate_token(session)
        obj["authToken"] = session.token
        log.info("%r token of session %s spent on presentation; the next one is issued", conn, session.id)

    # -- unknown token ---------------------------------------------------------------------------

    @staticmethod
    def bad_token_close(conn) -> None:
        """--bad-token close: a clean close (code 1000) without any message first."""
        log.info("%r unknown or expired token: bare close", conn)
        conn.close(1000, "")
