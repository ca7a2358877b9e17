"""The WebSocket listener: serve, stall (stop accepting) and go down/up on the same port (faults.py)."""
from __future__ import annotations

import asyncio
import logging
import ssl
from typing import Any, Dict, Optional

import websockets

log = logging.getLogger("wcsemu.listener")


class Listener:
    """Owns the WebSocket server of one emulator. Runs on the asyncio loop."""

    def __init__(self, emulator, tls: Optional[ssl.SSLContext]):
        self.emulator = emulator
        self.tls = tls
        self.server = None
        self.port = 0
        self.down = False
        self._paused: Dict[int, Any] = {}  # listening fd -> its accept handle, while stalled

    async def start(self, host: str, port: int) -> int:
        """Serves on host:port (0 = pick); returns the port."""
        self.server = await websockets.serve(
            self.emulator.handle_socket, host, port, ssl=self.tls,
            process_request=self.emulator.faults.process_request,
            ping_interval=None, ping_timeout=None,  # WCS keep-alive is JSON ping/pong, not control frames
            close_timeout=1, max_size=1 << 20)
        self.port = self.server.sockets[0].getsockname()[1]
        if self.emulator.faults.handshake_stall:
            self.stall(True)
        return self.port

    def stall(self, on: bool) -> None:
        """Stops (or resumes) accepting: new TCP connections wait in the kernel's backlog."""
        if self.server is None:
            return
        loop = asyncio.get_running_loop()
        for sock in self.server.sockets:
            fd = sock.fileno()
            if on and fd not in self._paused:
                handle = loop._selector.get_key(fd).data[0]  # the loop's accept callback, to put back later
                self._paused[fd] = (handle._callback, handle._args or ())  # (remove_reader clears the handle)
                loop.remove_reader(fd)
                log.info("listener fd %d: not accepting (handshake stall)", fd)
            elif not on and fd in self._paused:
                callback, args = self._paused.pop(fd)
                loop.add_reader(fd, callback, *args)
                log.info("listener fd %d: accepting again", fd)

    async def go_down(self, forget: bool) -> None:
        """The node dies: sockets dropped without a close frame, the port refuses; sessions lost if forget."""
        if self.down:
            return
        self.down = True
        self.stall(False)
        for conn in list(self.emulator.connections):
            if forget:
                conn.session = None
            conn.abort()
        if forget:
            for session in self.emulator.sessions.all():
                session.conn = None
                await self.emulator.sessions.destroy(session, "node down (sessions lost)")
        self.server.close()
        log.info("node down on port %d%s", self.port, " (sessions lost)" if forget else "")

    async def come_up(self, host: str) -> None:
        """Serves again on the same port."""
        if not self.down:
            return
        await self.server.wait_closed()
        await self.start(host, self.port)
        self.down = False
        log.info("node up again on port %d", self.port)
