"""A deterministic UDP impairment layer on the WebRTC leg's media path (`--impair`, POST /config).

`--impair loss=5,jitter=30,seed=1` drops 5 % of the RTP/RTCP datagrams and delays every other one
by a uniform 0..30 ms (so datagrams more than one frame apart in delay arrive reordered), in both
directions: what the emulator sends and what it receives. `delay=D` adds a fixed D ms on top.

- Only RTP and RTCP are touched (first byte 128..191, RFC 7983); STUN and DTLS pass unchanged so
  that call set-up does not depend on the dice.
- Deterministic: each call and direction draws from its own `random.Random`, seeded from `seed` and
  the direction only, so every call sees the same loss and delay pattern for its n-th datagram.
- Runs on the emulator's asyncio loop (aiortc's thread); a delayed datagram is sent or delivered
  by `loop.call_later`. Counters per call are reported in `GET /calls` under `media.impairment`.
"""
from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any, Callable, Dict, Optional

KEYS = ("loss", "jitter", "delay", "seed")


@dataclasses.dataclass(frozen=True)
class Impairment:
    """What to do to each media datagram: loss in percent, jitter and delay in milliseconds."""

    loss: float = 0.0
    jitter: float = 0.0
    delay: float = 0.0
    seed: int = 1

    @property
    def active(self) -> bool:
        """False when nothing would be changed."""
        return self.loss > 0 or self.jitter > 0 or self.delay > 0

    def spec(self) -> str:
        """The canonical text form (what parse() reads back)."""
        return f"loss={self.loss:g},jitter={self.jitter:g},delay={self.delay:g},seed={self.seed}"


def parse(text: Optional[str]) -> Optional[Impairment]:
    """Parses `loss=5,jitter=30[,delay=0][,seed=1]`; "" / "none" / None mean no impairment.

    Raises ValueError naming the bad part (unknown key, not a number, loss outside 0..100, negative ms).
    """
    if text is None or text.strip() in ("", "none", "off"):
        return None
    values: Dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep or key not in KEYS:
            raise ValueError(f"bad impairment part {part.strip()!r}: expected one of {', '.join(KEYS)} as key=value")
        if key in values:
            raise ValueError(f"impairment key {key} given twice")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"impairment {key}={value!r} is not a number") from None
        if number != number or number < 0:
            raise ValueError(f"impairment {key} must be >= 0")
        values[key] = number
    if values.get("loss", 0) > 100:
        raise ValueError("impairment loss must be 0..100 (percent)")
    if "seed" in values and values["seed"] != int(values["seed"]):
        raise ValueError("impairment seed must be an integer")
    return Impairment(loss=values.get("loss", 0.0), jitter=values.get("jitter", 0.0),
                      delay=values.get("delay", 0.0), seed=int(values.get("seed", 1)))


def is_media_datagram(data: Optional[bytes]) -> bool:
    """RTP or RTCP (RFC 7983: first byte 128..191); STUN, DTLS and None are not."""
    return bool(data) and 128 <= data[0] <= 191


class ImpairedPath:
    """One direction of one call: decides, per media datagram, drop or delay, then forwards it."""

    def __init__(self, impairment: Impairment, direction: str, forward: Callable[[bytes], Any]):
        self.impairment = impairment
        self.forward = forward
        self.rng = random.Random(f"{impairment.seed}:{direction}")
        self.passed = 0
        self.dropped = 0

    def decide(self) -> Optional[float]:
        """The delay in seconds for the next media datagram, or None to drop it."""
        drop = self.rng.random() * 100 < self.impairment.loss
        spread = self.rng.random() * self.impairment.jitter
        if drop:
            self.dropped += 1
            return None
        self.passed += 1
        return (self.impairment.delay + spread) / 1000

    def counters(self) -> Dict[str, int]:
        return {"passed": self.passed, "dropped": self.dropped}


def install(ice_transport, impairment: Impairment) -> Dict[str, ImpairedPath]:
    """Puts the impairment between aiortc's ICE transport and its DTLS/SRTP layer, both ways.

    `ice_transport` is aiortc's RTCIceTransport (its `_send` and its aioice connection's
    `data_received` are wrapped on the instance). Returns the two paths for their counters.
    """
    loop = asyncio.get_running_loop()
    connection = ice_transport._connection  # aiortc exposes no public hook on the datagram path
    send, receive = ice_transport._send, connection.data_received

    def send_later(data: bytes) -> None:
        task = loop.create_task(send(data))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a closed leg: drop silently

    outgoing = ImpairedPath(impairment, "send", send_later)
    incoming = ImpairedPath(impairment, "receive", lambda data: receive(data, 1))

    async def impaired_send(data: bytes) -> None:
        if not is_media_datagram(data):
            await send(data)
            return
        delay = outgoing.decide()
        if delay is None:
            return
        if delay == 0:
            await send(data)
        else:
            loop.call_later(delay, send_later, data)

    def impaired_receive(data: bytes, component: int) -> None:
        if component != 1 or not is_media_datagram(data):
            receive(data, component)
            return
        delay = incoming.decide()
        if delay is None:
            return
        if delay == 0:
            receive(data, component)
        else:
            loop.call_later(delay, receive, data, component)

    ice_transport._send = impaired_send
    connection.data_received = impaired_receive
    return {"send": outgoing, "receive": incoming}
