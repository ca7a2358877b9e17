"""The aiortc media engine (`--media aiortc`): the emulator terminates the WebRTC leg as WCS does.

- Incoming call: the emulator's RTCPeerConnection offers (audio only; ICE gathering completes before
  the SDP is returned, so it carries a 127.0.0.1 host candidate) and applies the client's answer.
- Outgoing call: it applies the client's offer and answers.
- The client's SDP may carry no candidates (WebSDK behaviour): aioice then learns the client's
  address from the client's connectivity checks (peer-reflexive); see README "Media".
- It plays the call's source (tone, WAV file, silence) and records what it receives to
  <record-dir>/<callId>.wav.
- ICE failure, DTLS failure or no connection within --ice-timeout fails the call.

ICE only ever uses one address, 127.0.0.1 unless --ice-address says otherwise: aioice's host-address
lookup is replaced (it normally skips loopback) and no STUN/TURN server is configured.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import re
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.codecs import CODECS
from aiortc.rtcrtpparameters import RTCRtpCodecParameters

from .audio import WavRecorder, open_source
from .dtmf_tones import DTMFMixTrack
from .impair import install as install_impairment, parse as parse_impairment
from .opus_fec import install as install_opus_fec
from .ice_lite import make_lite, mark_sdp_lite
from .sdp import STATIC_PAYLOADS, MediaError, parse_audio

log = logging.getLogger("wcsemu.webrtc")

ICE_ERROR = "Failed by ICE error"
DTLS_ERROR = "Failed by DTLS error"
DTLS_FINGERPRINT_ERROR = "Failed by DTLS fingerprint error"
EVENT_PT = "101"
DTMF_KEYS = "0123456789*#ABCD"


_ICE_ADDRESSES = ["127.0.0.1"]


def _loopback_only(use_ipv4: bool = True, use_ipv6: bool = True) -> List[str]:
    return list(_ICE_ADDRESSES)


def _configure_aiortc() -> None:
    """Loopback-only ICE; opus offered as PT 111 with minptime=10;useinbandfec=1 like a WebRTC stack."""
    aioice.ice.get_host_addresses = _loopback_only
    audio = CODECS["audio"]
    for index, codec in enumerate(audio):
        if codec.mimeType.lower() == "audio/opus":
            audio[index] = RTCRtpCodecParameters(mimeType="audio/opus", clockRate=48000, channels=2,
                                                 payloadType=111,
                                                 parameters={"minptime": 10, "useinbandfec": 1})


_configure_aiortc()


def with_telephone_event(sdp: str, pt: str) -> str:
    """Adds telephone-event/8000 as payload `pt` to the (single) audio section, unless present.

    aiortc has no RFC 4733 support; the engine captures received events itself and never sends any.
    """
    lines = sdp.split("\r\n")
    if any(line.startswith(f"a=rtpmap:{pt} ") for line in lines):
        return sdp
    anchors = [i for i, line in enumerate(lines) if line.startswith(("a=rtpmap:", "m=audio "))]
    if not anchors:
        return sdp
    out = []
    for index, line in enumerate(lines):
        if line.startswith("m=audio "):
            line = f"{line} {pt}"
        out.append(line)
        if index == anchors[-1]:
            out += [f"a=rtpmap:{pt} telephone-event/8000", f"a=fmtp:{pt} 0-15"]
    return "\r\n".join(out)


def _safe_name(call_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", call_id)[:120] or "call"


@dataclasses.dataclass(eq=False)
class CallMedia:
    """The WebRTC leg of one call."""

    pc: RTCPeerConnection
    source: Any
    recorder: WavRecorder
    codec: Optional[str] = None
    event_pt: Optional[int] = None
    packets_received: int = 0
    bytes_received: int = 0
    sent: Dict[str, int] = dataclasses.field(default_factory=dict)
    dtmf_timestamps: set = dataclasses.field(default_factory=set)
    watchdog: Optional[asyncio.TimerHandle] = None
    stopped: bool = False
    impairment: Optional[Dict[str, Any]] = None  # wcsemu.impair paths, when --impair is set
    opus_fec: Optional[Any] = None  # wcsemu.opus_fec state, when --opus-fec webrtc and the client asks for FEC


class AiortcMediaEngine:
    """Implements the wcsemu.media engine interface with aiortc."""

    name = "aiortc"

    def __init__(self, settings, on_failure: Callable[[Any, str], None]):
        self.settings = settings
        self.on_failure = on_failure
        _ICE_ADDRESSES[:] = [settings.ice_address]
        self.record_dir = settings.record_dir or tempfile.mkdtemp(prefix="wcs-emulator-rec-")
        os.makedirs(self.record_dir, exist_ok=True)
        settings.record_dir = self.record_dir

    # -- engine interface ------------------------------------------------------------------------

    async def make_offer(self, call) -> str:
        media = self._create(call)
        media.pc.addTrack(media.source)
        if self.settings.ice_lite:
            make_lite(media.pc, f"call {call.id}")
        await media.pc.setLocalDescription(await media.pc.createOffer())
        return self._lite_sdp(with_telephone_event(media.pc.localDescription.sdp, EVENT_PT))

    async def take_answer(self, call, sdp: Any) -> None:
        media: CallMedia = call.media
        section = self._check_remote(sdp)
        try:
            await media.pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="answer"))
        except Exception as error:
            raise MediaError("Failed by error", f"answer not applicable: {error}") from None
        self._negotiated(call, section, answer=sdp)

    async def answer_offer(self, call, offer: Any) -> str:
        section = self._check_remote(offer)
        media = self._create(call)
        try:
            await media.pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
            media.pc.addTrack(media.source)
            if self.settings.ice_lite:
                make_lite(media.pc, f"call {call.id}")
            await media.pc.setLocalDescription(await media.pc.createAnswer())
        except Exception as error:
            raise MediaError("Failed by error", f"offer not applicable: {error}") from None
        answer = media.pc.localDescription.sdp
        event_pt = section.payload_named("telephone-event", "8000")
        if event_pt is not None:
            answer = with_telephone_event(answer, event_pt)
        answer = self._lite_sdp(answer)
        self._negotiated(call, section, answer=answer)
        return answer

    def _lite_sdp(self, sdp: str) -> str:
        return mark_sdp_lite(sdp) if self.settings.ice_lite else sdp

    async def stop(self, call) -> None:
        media: Optional[CallMedia] = call.media
        if media is None or media.stopped:
            return
        media.sent = await self._sent_counters(media)
        media.stopped = True
        if media.watchdog is not None:
            media.watchdog.cancel()
        await media.recorder.stop()
        media.source.stop()
        await media.pc.close()
        log.info("call %s media closed: received %d RTP packets, recorded %.2f s", call.id,
                 media.packets_received, media.recorder.seconds)

    async def stats(self, call) -> Optional[Dict[str, Any]]:
        media: Optional[CallMedia] = call.media
        view: Dict[str, Any] = {"engine": self.name, "ice_state": None, "dtls_state": None,
                                "packets_sent": 0, "packets_received": 0, "bytes_sent": 0,
                                "bytes_received": 0, "codec": None, "recording": None,
                                "recorded_seconds": 0.0}
        if media is None:
            return view
        dtls_state = self._dtls(media).state if media.pc.getTransceivers() else None
        view.update(ice_state=media.pc.iceConnectionState, dtls_state=dtls_state,
                    packets_received=media.packets_received, bytes_received=media.bytes_received,
                    codec=media.codec)
        if media.recorder.frames:
            view.update(recording=media.recorder.path, recorded_seconds=media.recorder.seconds)
        if not media.stopped:
            media.sent = await self._sent_counters(media)
        view.update(media.sent)
        if media.impairment is not None:
            view["impairment"] = {way: path.counters() for way, path in media.impairment.items()}
        if media.opus_fec is not None:
            view["opus_fec"] = media.opus_fec.view()
        sent_keys = getattr(media.source, "sent_keys", None)
        if sent_keys:
            view["dtmf_tones_sent"] = list(sent_keys)
        return view

    @staticmethod
    async def _sent_counters(media: CallMedia) -> Dict[str, int]:
        for stat in (await media.pc.getStats()).values():
            if stat.type == "outbound-rtp":
                return {"packets_sent": stat.packetsSent, "bytes_sent": stat.bytesSent}
        return {}

    async def close(self) -> None:
        return None

    # -- internals -------------------------------------------------------------------------------

    @staticmethod
    def _check_remote(sdp: Any):
        section = parse_audio(sdp)
        if section.first_common_codec() is None:
            raise MediaError("No common codecs")
        if not section.has_ice_credentials:
            raise MediaError(ICE_ERROR, "remote SDP has no ice-ufrag/ice-pwd")
        if not section.has_fingerprint:
            raise MediaError(DTLS_FINGERPRINT_ERROR, "remote SDP has no fingerprint")
        return section

    def _create(self, call) -> CallMedia:
        source = DTMFMixTrack(open_source(call.source or self.settings.media_source))
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        path = os.path.join(self.record_dir, f"{_safe_name(call.id)}.wav")
        media = CallMedia(pc=pc, source=source, recorder=WavRecorder(path))
        call.media = media

        @pc.on("track")
        def on_track(track):
            if track.kind == "audio":
                media.recorder.start(track)

        @pc.on("iceconnectionstatechange")
        def on_ice_state():
            log.info("call %s ICE %s", call.id, pc.iceConnectionState)
            if pc.iceConnectionState == "failed" and not media.stopped:
                self.on_failure(call, ICE_ERROR)
        return media

    @staticmethod
    def _dtls(media: CallMedia):
        """The DTLS transport of the call's (single, bundled) audio transceiver."""
        return media.pc.getTransceivers()[0].receiver.transport

    def _hook_transport(self, call, media: CallMedia) -> None:
        """Watches DTLS state, counts received RTP and captures RFC 4733 events.

        Called right after the SDP exchange, before the connection task runs.
        """
        dtls = self._dtls(media)

        @dtls.on("statechange")
        def on_dtls_state():
            log.info("call %s DTLS %s", call.id, dtls.state)
            if dtls.state == "failed" and not media.stopped:
                self.on_failure(call, DTLS_FINGERPRINT_ERROR if dtls.encrypted else DTLS_ERROR)

        impairment = parse_impairment(self.settings.impair)
        if impairment is not None and impairment.active:
            media.impairment = install_impairment(dtls.transport, impairment)
            log.info("call %s media impaired: %s", call.id, impairment.spec())

        router = dtls._rtp_router  # aiortc has no public hook for raw received RTP
        route = router.route_rtp

        def counting_route(packet):
            media.packets_received += 1
            media.bytes_received += len(packet.payload)
            if media.event_pt is not None and packet.payload_type == media.event_pt:
                self._on_event_packet(call, media, packet)
                return None
            return route(packet)
        router.route_rtp = counting_route

    @staticmethod
    def _on_event_packet(call, media: CallMedia, packet) -> None:
        payload = packet.payload
        if len(payload) < 4 or not payload[1] & 0x80:  # wait for the end bit
            return
        if packet.timestamp in media.dtmf_timestamps:  # the end packet is sent three times
            return
        media.dtmf_timestamps.add(packet.timestamp)
        key = DTMF_KEYS[payload[0]] if payload[0] < len(DTMF_KEYS) else f"event{payload[0]}"
        call.dtmf_events.append({"type": "RTP", "dtmf": key, "time": time.time()})
        log.info("call %s RFC 4733 event %s received", call.id, key)

    def _negotiated(self, call, remote_section, answer: str) -> None:
        media: CallMedia = call.media
        answer_section = parse_audio(answer)
        first = answer_section.payloads[0] if answer_section.payloads else None
        if first is not None:
            name, clock = answer_section.rtpmap.get(first, (STATIC_PAYLOADS.get(first, "?"), "8000"))
            media.codec = f"{name}/{clock}"
        event_pt = answer_section.payload_named("telephone-event", "8000")
        media.event_pt = int(event_pt) if event_pt is not None else None
        self._hook_transport(call, media)
        if self.settings.opus_fec == "webrtc" and media.codec and media.codec.lower().startswith("opus/"):
            senders = media.pc.getSenders()
            if senders:
                media.opus_fec = install_opus_fec(senders[0], remote_section)
                log.info("call %s Opus in-band FEC %s", call.id, "on" if media.opus_fec else "not asked for")
        timeout = self.settings.ice_timeout
        media.watchdog = asyncio.get_running_loop().call_later(timeout, self._watchdog, call, media)

    def _watchdog(self, call, media: CallMedia) -> None:
        """--ice-timeout after the SDP exchange: the leg must be connected by now."""
        if media.stopped:
            return
        if media.pc.iceConnectionState not in ("completed", "connected"):
            log.warning("call %s: ICE not connected after %.1f s", call.id, self.settings.ice_timeout)
            self.on_failure(call, ICE_ERROR)
        elif self._dtls(media).state != "connected":
            log.warning("call %s: DTLS not connected after %.1f s", call.id, self.settings.ice_timeout)
            self.on_failure(call, DTLS_ERROR)

