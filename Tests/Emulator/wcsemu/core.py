"""The Emulator: shared state and the dispatcher that routes client messages to their handlers."""
from __future__ import annotations

import collections
import logging
import time
from typing import Any, Dict, Optional

from .admission import Admission
from .calls import CallManager
from .delivery import DeliveryLedger
from .connection import ClientConnection
from .faults import Faults
from .frames import redact
from .media import create_engine
from .model import new_id
from .push import PushSender
from .sessions import SessionManager
from .settings import Settings
from .tokens import TokenLedger, set_node_name
from .variants import ServerVariants
from .call_variants import CallVariants

log = logging.getLogger("wcsemu.core")

#: How many frames GET /frames remembers.
FRAME_LOG_SIZE = 20000

#: Client messages that need no reply and are only logged.
IGNORED_MESSAGES = ("pushLogs", "submitBugReport", "sessionDebug")


class Emulator:
    """One emulated WCS: sessions, calls, pushes, the media engine and the test switches."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.sessions = SessionManager(self)
        self.calls = CallManager(self)
        self.push = PushSender(self)
        self.delivery = DeliveryLedger(self)
        self.admission = Admission(self)
        self.variants = ServerVariants(self)
        self.call_variants = CallVariants(self)
        self.faults = Faults(self)
        self.listener = None           # wcsemu.listener.Listener, set by main.serve
        set_node_name(settings.name)
        self.tokens = TokenLedger(settings.name)
        self.engine = create_engine(settings, self.calls.on_media_failure)
        self.connections: set = set()
        self.frames: collections.deque = collections.deque(maxlen=FRAME_LOG_SIZE)
        self.silent = False            # POST /stop-answering: no pings, no replies
        self.no_ping_all = False       # POST /stop-pinging without login
        self.no_ping_logins: set = set()
        self._handlers = {
            "call": self.calls.on_call, "answer": self.calls.on_answer, "hangup": self.calls.on_hangup,
            "hold": self.calls.on_hold, "unhold": self.calls.on_unhold, "sendDtmf": self.calls.on_dtmf,
            "transfer": self.calls.on_transfer, "sendData": self._on_send_data,
        }

    async def handle_socket(self, websocket) -> None:
        """websockets.serve handler: one client connection."""
        conn = ClientConnection(self, websocket)
        admitted = self.admission.on_open(conn)
        if not admitted or self.faults.take_close_1013():
            await self.admission.refuse(conn, by_fault=admitted)
            return
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)

    async def dispatch(self, conn: ClientConnection, name: str, arg: Any) -> None:
        """Routes one decoded client message (ping/pong are handled by the connection)."""
        if name == "connection":
            await self.variants.on_connection(conn, arg, self._handle_connection)
            return
        if conn.session is None:
            log.warning("%r %s before 'connection' ignored", conn, name)
            return
        handler = self._handlers.get(name)
        if handler is not None:
            await handler(conn, arg)
        elif name in IGNORED_MESSAGES:
            log.info("%r %s accepted (no reply)", conn, name)
        else:
            log.warning("%r unknown message %r ignored", conn, name)

    async def _handle_connection(self, conn: ClientConnection, arg: Any) -> None:
        """A `connection` message, once any --connection-delay has passed."""
        self.admission.on_connection(conn, arg)
        await self.sessions.on_connection(conn, arg)
        self.admission.after_connection(conn)

    async def _on_send_data(self, conn: ClientConnection, obj: Any) -> None:
        """`sendData {operationId, payload}`: there is no backend, so it is accepted at once."""
        operation = obj.get("operationId") if isinstance(obj, dict) else None
        await conn.send("DataStatusEvent", [{"operationId": operation, "status": "ACCEPTED"}])

    def pinging_stopped_for(self, conn: ClientConnection) -> bool:
        """True if POST /stop-pinging silenced pings for this connection."""
        if self.no_ping_all:
            return True
        return conn.session is not None and conn.session.login in self.no_ping_logins

    def record_frame(self, conn: ClientConnection, direction: str, name: Optional[str], arg: Any,
                     raw: Optional[str] = None, error: Optional[str] = None) -> None:
        """Appends a (secret-free) entry to the frame log served by GET /frames."""
        session = conn.session
        entry: Dict[str, Any] = {"time": time.time(), "dir": direction, "conn": conn.number,
                                 "session": session.id if session else None,
                                 "login": session.login if session else None, "message": name,
                                 "data": redact(arg)}
        if raw is not None:
            entry["raw"] = raw
        if error is not None:
            entry["error"] = error
        self.frames.append(entry)

    @staticmethod
    def new_call_id() -> str:
        """A server-generated callId for an incoming call."""
        return new_id()

    async def restart(self, abort: bool = False, keep_sessions: bool = False) -> int:
        """Simulates a server restart: every socket closed with 1012 (or aborted); every session is
        lost, or with `keep_sessions` (a server that keeps sessions across restarts) every keepAlive
        session is kept detached, with its token and registration. Returns how many were kept."""
        log.info("restart: %s %d sessions, closing %d sockets", "keeping" if keep_sessions else "dropping",
                 len(self.sessions.by_id), len(self.connections))
        for conn in list(self.connections):
            if not keep_sessions:
                conn.session = None
            if abort:
                conn.abort()
            else:
                conn.close(1012, "Service restart")
        if keep_sessions:
            return sum(1 for s in self.sessions.all() if s.keep_alive)
        for session in self.sessions.all():
            session.conn = None
            await self.sessions.destroy(session, "server restart")
        return 0

    async def shutdown(self) -> None:
        """Releases media (the WebSocket server closes its own connections)."""
        for call in self.calls.all():
            if call.live:
                await self.calls.finish(call, "FINISH", "Normal call clearing", "emulator_stopped",
                                        notify=False)
        await self.engine.close()
