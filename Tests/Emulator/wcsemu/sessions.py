"""Session lifecycle: fresh login and SIP registration, keepAlive detach, token resume, expiry."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Dict, List, Optional

from .model import Session, new_token

log = logging.getLogger("wcsemu.sessions")

#: Connection fields never stored or echoed (the password is a secret; the token is the server's to give).
NOT_ECHOED = ("sipPassword", "authToken")


def is_true(value: Any) -> bool:
    """WCS clients send booleans, some send strings: accept true and "true"."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


class SessionManager:
    """Owns every live session, indexed by id and by token."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.by_id: Dict[str, Session] = {}
        self.by_token: Dict[str, Session] = {}

    # -- queries ---------------------------------------------------------------------------------

    def all(self) -> List[Session]:
        """Live sessions, oldest first."""
        return list(self.by_id.values())

    def for_login(self, login: str) -> List[Session]:
        """Live sessions whose sipLogin is `login`, oldest first."""
        return [s for s in self.by_id.values() if s.login == login]

    def registered_for(self, login: str) -> Optional[Session]:
        """The newest live, registered session of `login` (the one a PBX would route an INVITE to)."""
        candidates = [s for s in self.for_login(login) if s.registered]
        return candidates[-1] if candidates else None

    # -- client messages -------------------------------------------------------------------------

    async def on_connection(self, conn, obj: Any) -> None:
        """Handles the client's `connection` message: fresh login, token resume or bad token."""
        if conn.session is not None:
            log.warning("%r second 'connection' on the same socket ignored", conn)
            return
        if not isinstance(obj, dict):
            log.warning("%r 'connection' without an object; treated as empty", conn)
            obj = {}
        token = obj.get("authToken")
        if isinstance(token, str) and token:
            session = self.by_token.get(token)
            self.emulator.tokens.presented(token, known=session is not None)
            if session is not None:
                await self._resume(conn, session, obj)
                return
            if self.emulator.settings.bad_token == "close":
                self.emulator.variants.bad_token_close(conn)
                return
            if self.emulator.settings.bad_token == "fail":
                log.info("%r unknown or expired token: fail + close", conn)
                await conn.send("fail", [{"apiMethod": "ConnectionStatusEvent", "status": "FAILED",
                                          "info": "Session not found"}])
                conn.close(1000, "Session not found")
                return
            log.info("%r unknown or expired token: starting a new session", conn)
        await self._login(conn, obj)

    async def _login(self, conn, obj: Dict[str, Any]) -> None:
        login = obj.get("sipLogin")
        session = Session(login=login if isinstance(login, str) and login else None,
                          fields={k: v for k, v in obj.items() if k not in NOT_ECHOED},
                          keep_alive=is_true(obj.get("keepAlive")))
        self.by_id[session.id] = session
        self.by_token[session.token] = session
        self._attach(conn, session)
        log.info("%r new session %s login=%s keepAlive=%s", conn, session.id, session.login,
                 session.keep_alive)
        registration = None
        fault = self.emulator.faults.registration_fault() if is_true(obj.get("sipRegisterRequired")) else None
        if fault == "silent":
            log.info("session %s: the registrar does not answer (fault registrar_silent_next)", session.id)
        elif fault == "fail":
            status = self.emulator.faults.registrar_fail_status
            log.info("session %s: registration of %s failed at the registrar: %s (fault)", session.id,
                     session.login, status)
            registration = ("fail", [{"apiMethod": "RegistrationStatusEvent", "status": status,
                                      "info": "Registrar did not answer"}])
        elif is_true(obj.get("sipRegisterRequired")):
            if self._credentials_ok(obj):
                session.registered = True
                log.info("session %s registered as %s", session.id, session.login)
                registration = ("registered", [{"status": "REGISTERED"}])
            else:
                log.info("session %s: registration of %s refused (bad credentials)", session.id,
                         session.login)
                registration = ("fail", [{"apiMethod": "RegistrationStatusEvent",
                                          "status": "AUTHENTICATION_FAIL", "info": "Authentication failed"}])
        await self.emulator.variants.send_login_reply(conn, session, registration)

    def _credentials_ok(self, obj: Dict[str, Any]) -> bool:
        users = self.emulator.settings.users
        password = obj.get("sipPassword")
        if not isinstance(password, str) or not isinstance(obj.get("sipLogin"), str):
            return False
        for user in (obj.get("sipLogin"), obj.get("sipAuthenticationName")):
            if isinstance(user, str) and user in users and users[user] == password:
                return True
        return False

    async def _resume(self, conn, session: Session, obj: Dict[str, Any]) -> None:
        old = session.conn
        if old is not None and old is not conn:
            log.info("session %s resumed by %r: closing the previous %r", session.id, conn, old)
            old.session = None
            old.close(1000, "Session resumed on another connection")
        if session.expiry is not None:
            session.expiry.cancel()
        session.expiry, session.expires_at, session.detached_at = None, None, None
        if "keepAlive" in obj:
            session.keep_alive = is_true(obj.get("keepAlive"))
            session.fields["keepAlive"] = session.keep_alive
        self._attach(conn, session)
        log.info("%r resumed session %s (login=%s)", conn, session.id, session.login)
        await self.emulator.variants.send_resume_reply(conn, session)
        await self.emulator.calls.replay_ringing(session, conn)

    def rotate_token(self, session: Session) -> None:
        """Gives the session a new token (variant --resume-token rotate); the old one stops working."""
        self.by_token.pop(session.token, None)
        session.token = new_token()
        self.by_token[session.token] = session

    @staticmethod
    def _attach(conn, session: Session) -> None:
        conn.session = session
        session.conn = conn

    # -- socket loss, expiry, destruction --------------------------------------------------------

    async def on_socket_gone(self, conn) -> None:
        """The socket closed (cleanly or not): keep the session (keepAlive) or destroy it."""
        session = conn.session
        conn.session = None
        if session is None or session.conn is not conn:
            return
        session.conn = None
        if not session.keep_alive:
            await self.destroy(session, "socket closed without keepAlive")
            return
        ttl = self.emulator.settings.keepalive_ttl
        session.detached_at = time.time()
        session.expires_at = session.detached_at + ttl
        session.expiry = asyncio.get_running_loop().call_later(
            ttl, lambda: asyncio.create_task(self.destroy(session, "keepAlive TTL expired")))
        log.info("session %s detached, kept for %.1f s", session.id, ttl)
        await self.emulator.calls.on_session_detached(session)

    async def destroy(self, session: Session, reason: str, close_code: int = 1000) -> None:
        """Ends a session: its token stops working, its calls end, an attached socket is closed."""
        if not session.alive:
            return
        session.alive = False
        log.info("session %s destroyed: %s", session.id, reason)
        if session.expiry is not None:
            session.expiry.cancel()
        self.by_id.pop(session.id, None)
        self.by_token.pop(session.token, None)
        await self.emulator.calls.end_for_session(session, "session_destroyed")
        conn = session.conn
        session.conn = None
        if conn is not None:
            conn.session = None
            conn.close(close_code, "Session destroyed")
