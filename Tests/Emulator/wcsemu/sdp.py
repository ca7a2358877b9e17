"""SDP helpers and the fixed (signaling-only) SDP producer.

The fixed engine returns canned but valid audio SDP and opens no sockets; it serves signaling-only tests
(`--media fixed`). The aiortc engine (wcsemu.media_webrtc) replaces it when a real media leg is wanted.
"""
from __future__ import annotations

import dataclasses
import random
import secrets
from typing import Dict, List, Optional, Tuple

#: Codecs the emulator offers/accepts on the WebRTC leg, in preference order (protocol doc §7.4).
SUPPORTED_CODECS = ("opus", "pcmu", "pcma")


class MediaError(Exception):
    """A media-leg failure; `info` is the WCS info string sent with `finish {status: "FAILED"}`."""

    def __init__(self, info: str, detail: str = ""):
        super().__init__(f"{info}: {detail}" if detail else info)
        self.info = info


@dataclasses.dataclass
class AudioSection:
    """The parts of an SDP's first audio section the emulator cares about."""

    mid: str
    payloads: List[str]
    rtpmap: Dict[str, Tuple[str, str]]  # pt -> (lower-case name, clock rate[/channels])
    fmtp: Dict[str, str]
    candidates: int
    has_ice_credentials: bool
    has_fingerprint: bool

    def first_common_codec(self) -> Optional[str]:
        """The first payload type (in the SDP's order) that is one of SUPPORTED_CODECS."""
        for pt in self.payloads:
            name = self.rtpmap.get(pt, (STATIC_PAYLOADS.get(pt, ""), ""))[0]
            if name in SUPPORTED_CODECS:
                return pt
        return None

    def payload_named(self, name: str, clock: str = "") -> Optional[str]:
        """The first payload type carrying codec `name` (lower case), optionally at clock rate `clock`."""
        for pt in self.payloads:
            got_name, got_clock = self.rtpmap.get(pt, ("", ""))
            if got_name == name and got_clock.startswith(clock):
                return pt
        return None


#: Static payload types that may appear without an rtpmap line.
STATIC_PAYLOADS = {"0": "pcmu", "8": "pcma"}


def parse_audio(sdp: object) -> AudioSection:
    """Parses the first `m=audio` section; raises MediaError("Failed by error") on unusable SDP."""
    if not isinstance(sdp, str) or not sdp.lstrip().startswith("v=0"):
        raise MediaError("Failed by error", "SDP missing or not starting with v=0")
    section: Optional[AudioSection] = None
    session_mid, session_ice, session_fp = None, False, False
    for raw in sdp.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        if line.startswith("m="):
            if section is not None:
                break
            parts = line[2:].split()
            if len(parts) >= 3 and parts[0] == "audio":
                section = AudioSection(mid=session_mid or "0", payloads=parts[3:], rtpmap={}, fmtp={},
                                       candidates=0, has_ice_credentials=session_ice,
                                       has_fingerprint=session_fp)
            continue
        attr, _, value = line.partition(":")
        if section is None:
            session_ice = session_ice or attr == "a=ice-ufrag"
            session_fp = session_fp or attr == "a=fingerprint"
            continue
        if attr == "a=mid":
            section.mid = value
        elif attr == "a=rtpmap":
            pt, _, codec = value.partition(" ")
            name, _, clock = codec.partition("/")
            section.rtpmap[pt] = (name.lower(), clock)
        elif attr == "a=fmtp":
            pt, _, params = value.partition(" ")
            section.fmtp[pt] = params
        elif attr == "a=candidate":
            section.candidates += 1
        elif attr == "a=ice-ufrag":
            section.has_ice_credentials = True
        elif attr == "a=fingerprint":
            section.has_fingerprint = True
    if section is None:
        raise MediaError("Failed by error", "SDP has no m=audio section")
    return section


def _fake_fingerprint() -> str:
    return ":".join(f"{b:02X}" for b in secrets.token_bytes(32))


def _codec_lines(pt: str) -> List[str]:
    lines = {
        "111": ["a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1"],
        "0": ["a=rtpmap:0 PCMU/8000"],
        "8": ["a=rtpmap:8 PCMA/8000"],
        "101": ["a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-15"],
    }
    return lines[pt]


def build_audio_sdp(*, mid: str, payloads: List[str], codec_lines: List[str], setup: str,
                    port: int) -> str:
    """A complete single-audio-section WebRTC SDP with one 127.0.0.1 host candidate."""
    session_id = random.randint(10**15, 10**16)
    lines = [
        "v=0", f"o=- {session_id} 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
        f"a=group:BUNDLE {mid}", "a=msid-semantic: WMS wcs-emulator",
        f"m=audio {port} UDP/TLS/RTP/SAVPF {' '.join(payloads)}",
        "c=IN IP4 127.0.0.1", "a=rtcp:9 IN IP4 0.0.0.0",
        f"a=candidate:1 1 udp 2130706431 127.0.0.1 {port} typ host",
        "a=end-of-candidates",
        f"a=ice-ufrag:{secrets.token_hex(4)}", f"a=ice-pwd:{secrets.token_hex(12)}",
        f"a=fingerprint:sha-256 {_fake_fingerprint()}", f"a=setup:{setup}",
        f"a=mid:{mid}", "a=sendrecv", "a=rtcp-mux",
        *codec_lines,
        f"a=ssrc:{random.randint(1, 2**32 - 1)} cname:wcs-emulator",
    ]
    return "\r\n".join(lines) + "\r\n"


class FixedMediaEngine:
    """Canned SDP, no sockets, no media (`--media fixed`). Implements the wcsemu.media engine interface."""

    name = "fixed"
    PORT = 50000

    async def make_offer(self, call) -> str:
        payloads = ["111", "0", "8", "101"]
        lines = [line for pt in payloads for line in _codec_lines(pt)]
        return build_audio_sdp(mid="0", payloads=payloads, codec_lines=lines, setup="actpass",
                               port=self.PORT)

    async def take_answer(self, call, sdp: str) -> None:
        if parse_audio(sdp).first_common_codec() is None:
            raise MediaError("No common codecs")

    async def answer_offer(self, call, offer: str) -> str:
        section = parse_audio(offer)
        chosen = section.first_common_codec()
        if chosen is None:
            raise MediaError("No common codecs")
        name, clock = section.rtpmap.get(chosen, (STATIC_PAYLOADS.get(chosen, ""), "8000"))
        lines = [f"a=rtpmap:{chosen} {name.upper() if name != 'opus' else 'opus'}/{clock}"]
        if chosen in section.fmtp:
            lines.append(f"a=fmtp:{chosen} {section.fmtp[chosen]}")
        payloads = [chosen]
        event_pt = section.payload_named("telephone-event", "8000")
        if event_pt is not None:
            payloads.append(event_pt)
            lines += [f"a=rtpmap:{event_pt} telephone-event/8000", f"a=fmtp:{event_pt} 0-15"]
        return build_audio_sdp(mid=section.mid, payloads=payloads, codec_lines=lines, setup="active",
                               port=self.PORT)

    async def stop(self, call) -> None:
        return None

    async def stats(self, call) -> Optional[dict]:
        return {"engine": self.name}

    async def close(self) -> None:
        return None
