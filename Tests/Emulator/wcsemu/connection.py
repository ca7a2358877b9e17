"""One client WebSocket: frame I/O, server pings and pong accounting, silence switches, abort/close."""
from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any, List, Optional, Union

import websockets

from . import frames

log = logging.getLogger("wcsemu.connection")
_numbers = itertools.count(1)


class ClientConnection:
    """A connected WebSocket and what the emulator knows about it (its session, missed pongs)."""

    def __init__(self, emulator, websocket):
        self.emulator = emulator
        self.ws = websocket
        self.number = next(_numbers)
        peer = websocket.remote_address or ("?", 0)
        self.remote = f"{peer[0]}:{peer[1]}"
        self.session = None  # the attached wcsemu.model.Session
        self.unanswered_pings = 0
        self.closed = False

    def __repr__(self) -> str:
        return f"conn#{self.number}({self.remote})"

    async def run(self) -> None:
        """Serves the socket until it closes, then tells the session manager it is gone."""
        log.info("%r open", self)
        pinger = asyncio.create_task(self._ping_loop())
        try:
            async for message in self.ws:
                if isinstance(message, bytes):
                    log.info("%r binary frame of %d bytes ignored", self, len(message))
                    continue
                await self._on_text(message)
        except websockets.ConnectionClosed:
            pass
        except Exception:  # never let one bad frame take the server down
            log.exception("%r handler error; closing", self)
            self.abort()
        finally:
            self.closed = True
            pinger.cancel()
            log.info("%r closed (code %s)", self, self.ws.close_code)
            await self.emulator.sessions.on_socket_gone(self)

    async def _on_text(self, text: str) -> None:
        if self.emulator.silent:
            log.info("%r silent mode: frame ignored", self)
            return
        try:
            name, arg = frames.decode(text)
        except frames.FrameError as error:
            log.warning("%r malformed frame ignored (%s): %.200r", self, error, text)
            self.emulator.record_frame(self, "in", None, None, raw=text[:500], error=str(error))
            return
        self.emulator.record_frame(self, "in", name, arg)
        if self.emulator.settings.verbose or name not in ("ping", "pong"):
            log.info("%r <- %s", self, frames.summary(name, arg))
        if name == "pong":
            self.unanswered_pings = 0
        elif name == "ping":
            await self.send("pong")
        else:
            await self.emulator.dispatch(self, name, arg)

    async def send(self, name: str, args: Optional[List[Any]] = None) -> bool:
        """Sends one server frame; returns False if it was dropped (closed socket or silent mode)."""
        if self.closed:
            log.info("%r closed: %s not sent", self, name)
            return False
        if self.emulator.silent:
            log.info("%r silent mode: %s not sent", self, name)
            return False
        text = frames.encode(name, args)
        self.emulator.record_frame(self, "out", name, args[0] if args and len(args) == 1 else args)
        if self.emulator.settings.verbose or name not in ("ping", "pong"):
            log.info("%r -> %s", self, frames.summary(name, args))
        try:
            await self.ws.send(text)
            return True
        except websockets.ConnectionClosed:
            return False

    async def send_raw(self, payload: Union[str, bytes]) -> bool:
        """Sends an arbitrary text or binary frame (control API /malformed)."""
        if self.closed:
            return False
        self.emulator.record_frame(self, "out", None, None, raw=payload if isinstance(payload, str)
                                   else f"<{len(payload)} binary bytes>")
        log.info("%r -> raw %s frame %.100r", self, "binary" if isinstance(payload, bytes) else "text", payload)
        try:
            await self.ws.send(payload)
            return True
        except websockets.ConnectionClosed:
            return False

    def abort(self) -> None:
        """Drops the TCP connection at once, without a close frame."""
        log.info("%r aborting transport", self)
        transport = getattr(self.ws, "transport", None)
        if transport is not None:
            transport.abort()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Starts a clean close (close frame, bounded by the server's close timeout)."""
        log.info("%r closing with %d %s", self, code, reason)
        asyncio.create_task(self.ws.close(code, reason))

    async def _ping_loop(self) -> None:
        settings = self.emulator.settings
        while True:
            await asyncio.sleep(settings.ping_interval)
            if self.emulator.silent or self.emulator.pinging_stopped_for(self):
                continue
            if self.unanswered_pings >= settings.missed_pongs:
                log.warning("%r %d pings unanswered: closing", self, self.unanswered_pings)
                await self.ws.close(1001, "ping timeout")
                return
            self.unanswered_pings += 1
            await self.send("ping")
