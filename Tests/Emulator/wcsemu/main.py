"""Process entry: parse flags, start the WebSocket and control listeners, print the ready line, run."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import ssl
import sys
from typing import List

from .control import ControlApi
from .core import Emulator
from .listener import Listener
from .settings import Settings, parse_settings

log = logging.getLogger("wcsemu.main")

#: The control API only ever listens on loopback.
CONTROL_HOST = "127.0.0.1"


def _tls_context(settings: Settings) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(settings.tls_cert, settings.tls_key)
    return context


async def serve(settings: Settings) -> None:
    """Runs the emulator until SIGTERM or SIGINT."""
    emulator = Emulator(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    listener = Listener(emulator, _tls_context(settings) if settings.tls_cert else None)
    emulator.listener = listener
    port = await listener.start(settings.host, settings.port)
    control = ControlApi(emulator)
    control_server = await asyncio.start_server(control.handle, CONTROL_HOST, settings.control_port)

    ready = {"ready": True, "port": port,
             "control_port": control_server.sockets[0].getsockname()[1],
             "scheme": "wss" if settings.tls_cert else "ws", "pid": os.getpid()}
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    log.info("ready: %s", ready)

    await stop.wait()
    log.info("stopping")
    control_server.close()
    listener.server.close()
    try:
        await asyncio.wait_for(listener.server.wait_closed(), 3)
    except asyncio.TimeoutError:
        log.warning("WebSocket server did not close in time")
    await emulator.shutdown()


def main(argv: List[str]) -> int:
    """Entry point; returns the process exit status."""
    # Test runners may spawn us with every signal blocked (the mask survives exec): unblock ours.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    settings = parse_settings(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if settings.verbose else logging.INFO,
                        format="%(asctime)s.%(msecs)03d wcs-emulator[%(process)d] %(levelname)s "
                               "%(name)s: %(message)s", datefmt="%H:%M:%S")
    if not settings.verbose:
        for noisy in ("websockets", "asyncio"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        asyncio.run(serve(settings))
    except OSError as error:  # e.g. port in use, unreadable TLS files
        log.error("cannot start: %s", error)
        return 1
    except ssl.SSLError as error:
        log.error("bad TLS certificate or key: %s", error)
        return 1
    return 0
