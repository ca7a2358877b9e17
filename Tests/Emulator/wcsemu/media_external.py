"""External media legs: the SIP side's far end is a process outside the emulator (`POST /ring` with
`offer_sdp`), e.g. the bench peer `wcs-bench-peer`, which runs many calls' media in one process.

For such a call the emulator only relays SDP: the caller's offer goes to the client unchanged, the
client's answer is recorded (`answer_sdp` in `GET /calls`, where the external peer picks it up) and
no media runs in the emulator. Every other call goes to the configured engine (aiortc or fixed).
Runs on the emulator's asyncio loop.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from .sdp import MediaError, parse_audio


class ExternalLegRouter:
    """A media engine (wcsemu.media interface) that serves calls with `external_offer` itself and
    hands every other call to `inner`."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    @staticmethod
    def _external(call) -> bool:
        return getattr(call, "external_offer", None) is not None

    async def make_offer(self, call) -> str:
        if not self._external(call):
            return await self.inner.make_offer(call)
        parse_audio(call.external_offer)  # raises MediaError for an SDP without audio
        return call.external_offer

    async def take_answer(self, call, sdp: Any) -> None:
        if not self._external(call):
            return await self.inner.take_answer(call, sdp)
        if not isinstance(sdp, str):
            raise MediaError("Failed by error", "answer without SDP")
        parse_audio(sdp)

    async def answer_offer(self, call, offer: Any) -> str:
        return await self.inner.answer_offer(call, offer)

    async def stop(self, call) -> None:
        if not self._external(call):
            await self.inner.stop(call)

    async def stats(self, call) -> Optional[Dict[str, Any]]:
        if self._external(call):
            return {"engine": "external"}
        return await self.inner.stats(call)

    async def close(self) -> None:
        await self.inner.close()
