"""Opus in-band FEC on the emulator's sending side, the way libwebrtc does it (`--opus-fec webrtc`).

aiortc 1.4 never enables Opus in-band FEC, so a lost packet can only be concealed by the receiver.
A browser (libwebrtc) turns FEC on when the remote SDP says `useinbandfec=1` and tells its encoder
the loss the remote reports in RTCP (fraction lost, smoothed, in steps of 0/1/5/10/20 %); libopus
adds the previous frame's low-bitrate copy (LBRR) to each packet only while that loss is above 0.

`install(sender, section)` does the same for one call's aiortc sender when the remote audio section
offers `useinbandfec=1` on its Opus payload type: the sender's Opus encoder gets FEC on, and each
RTCP report block about our stream updates the encoder's expected loss. libopus is called through
ctypes on aiortc's own encoder handle (aiortc's cffi module exposes no `opus_encoder_ctl`).
Runs on the emulator's asyncio loop (RTCP) and aiortc's encoder executor (encode).
"""
from __future__ import annotations

import ctypes
import logging
from typing import Any, Optional

from aiortc.codecs.opus import OpusEncoder
from aiortc.codecs._opus import ffi

log = logging.getLogger("wcsemu.opus_fec")

MODES = ("off", "webrtc")
OPUS_SET_INBAND_FEC = 4012
OPUS_SET_PACKET_LOSS_PERC = 4014
# libwebrtc's loss steps: the encoder is told the step at or below the smoothed loss
LOSS_STEPS = (20, 10, 5, 1)
SMOOTHING = 0.5  # weight of the previous estimate per report (reports come every ~1-5 s)

_opus: Optional[ctypes.CDLL] = None


def _lib() -> ctypes.CDLL:
    global _opus
    if _opus is None:
        _opus = ctypes.CDLL("libopus.so.0")  # the library aiortc's cffi module is linked to
        _opus.opus_encoder_ctl.restype = ctypes.c_int
    return _opus


def _ctl(encoder: OpusEncoder, request: int, value: int) -> None:
    handle = ctypes.c_void_p(int(ffi.cast("uintptr_t", encoder.encoder)))
    result = _lib().opus_encoder_ctl(handle, ctypes.c_int(request), ctypes.c_int(value))
    if result != 0:
        raise RuntimeError(f"opus_encoder_ctl({request}, {value}) failed: {result}")


def loss_step(percent: float) -> int:
    """The libwebrtc-style step (0, 1, 5, 10 or 20) for a smoothed loss percentage."""
    return next((step for step in LOSS_STEPS if percent >= step), 0)


class FECState:
    """One sender's encoder with FEC on and its smoothed loss estimate."""

    def __init__(self, encoder: OpusEncoder):
        self.encoder = encoder
        self.smoothed = 0.0
        self.step = 0
        self.reports = 0
        _ctl(encoder, OPUS_SET_INBAND_FEC, 1)

    def report(self, fraction_lost: int) -> None:
        """Takes one RTCP report block's fraction lost (0-255)."""
        percent = fraction_lost * 100 / 256
        self.smoothed = percent if self.reports == 0 else SMOOTHING * self.smoothed + (1 - SMOOTHING) * percent
        self.reports += 1
        step = loss_step(self.smoothed)
        if step != self.step:
            _ctl(self.encoder, OPUS_SET_PACKET_LOSS_PERC, step)
            log.info("opus FEC: remote reports %.1f %% loss (smoothed %.1f %%): encoder expects %d %%",
                     percent, self.smoothed, step)
            self.step = step

    def view(self) -> dict:
        return {"expected_loss_percent": self.step, "reports": self.reports}


def offers_fec(section: Any) -> bool:
    """True when the remote audio section has `useinbandfec=1` on an Opus payload type."""
    for pt, (name, _clock) in section.rtpmap.items():
        if name.lower() == "opus":
            params = {k.strip().lower(): v.strip() for k, _, v in
                      (p.partition("=") for p in section.fmtp.get(pt, "").split(";"))}
            if params.get("useinbandfec") == "1":
                return True
    return False


def install(sender, section) -> Optional[FECState]:
    """Gives `sender` (an aiortc RTCRtpSender, before its first frame) an Opus encoder with FEC
    when `section` asks for it; returns the state, or None when FEC is not offered."""
    if not offers_fec(section):
        return None
    encoder = OpusEncoder()
    state = FECState(encoder)
    sender._RTCRtpSender__encoder = encoder  # aiortc creates it lazily only when unset
    handle = sender._handle_rtcp_packet

    async def handle_rtcp(packet):
        for block in getattr(packet, "reports", ()):
            if block.ssrc == sender._ssrc:
                state.report(block.fraction_lost)
        await handle(packet)
    sender._handle_rtcp_packet = handle_rtcp
    return state
