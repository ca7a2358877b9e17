"""The media-engine interface: everything SDP- and media-related goes through one object.

An engine implements these coroutines (`call` is a wcsemu.model.Call; engines keep per-call state in
`call.media`):

    make_offer(call) -> str          incoming call: the server's SDP offer (complete, with candidates)
    take_answer(call, sdp) -> None   incoming call: apply the client's answer
    answer_offer(call, sdp) -> str   outgoing call: apply the client's offer, return the server's answer
    stop(call) -> None               the call ended: release its media
    stats(call) -> dict | None       per-call media statistics for GET /calls
    close() -> None                  the emulator stops

The SDP methods raise wcsemu.sdp.MediaError(info) on failure; the call then ends with
`finish {status: "FAILED", info}`. A media failure detected later (ICE, DTLS) is reported through the
`on_failure(call, info)` callback given to the engine's constructor.
"""
from __future__ import annotations

from typing import Callable

from .media_external import ExternalLegRouter
from .sdp import FixedMediaEngine
from .settings import Settings


def create_engine(settings: Settings, on_failure: Callable) -> object:
    """The engine selected by `--media`, behind the router for external legs (POST /ring offer_sdp)."""
    if settings.media == "fixed":
        return ExternalLegRouter(FixedMediaEngine())
    if settings.media == "aiortc":
        from .media_webrtc import AiortcMediaEngine  # imported lazily: aiortc is slow to import
        return ExternalLegRouter(AiortcMediaEngine(settings, on_failure))
    raise ValueError(f"unknown media engine {settings.media}")
