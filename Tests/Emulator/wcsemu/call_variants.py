"""Server variants of incoming calls: what a SIP side and a real WCS may do to a call that the
protocol notes leave open or that a hostile caller controls (README "Server variants", calls).

- `--duplicate-notify MS`: an INVITE retransmission that arrives late. MS milliseconds after the
  client's answer was taken (`talk` sent), the call's `notifyIncomingCall` (status RING) is sent
  again, as a SIP-to-WebRTC gateway relays a retransmitted INVITE.
- `--answered-elsewhere SECONDS`: another device registered for the same login answers every
  incoming call SECONDS after it starts ringing: the client gets `talk {ESTABLISHED}` for a call it
  never answered; the call goes on (state established, `answered_elsewhere` in GET /calls) until the
  SIP side or the control API ends it. A client `answer` or `hangup` of it shows in GET /frames.
- `--call-ids uuid|long|odd`: the ids of incoming calls: UUIDs (default); 300 characters; or ids
  with `/`, `..`, spaces, ESC, a bidi override and non-ASCII letters, each also unique.
- `--display-names plain|hostile`: `hostile` puts a terminal attack in every caller's display name
  (an OSC 52 clipboard write, ESC [2J, a bidi override) unless POST /ring names one.

Each is also a POST /config key (duplicate_notify_ms, answered_elsewhere, call_ids, display_names).
Runs on the emulator's asyncio loop, like everything in wcsemu.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
from typing import Any, Callable, Dict, Optional

from .converters import argparse_type as _arg, choice as _choice
from .model import ESTABLISHED, RINGING, new_id

log = logging.getLogger("wcsemu.call_variants")

CALL_ID_STYLES = ("uuid", "long", "odd")
DISPLAY_NAME_STYLES = ("plain", "hostile")

#: The disclosed display name: clipboard write (OSC 52 ... BEL), clear screen, bidi override.
HOSTILE_DISPLAY_NAME = "Door\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202egnp.exe\u2066\x9b31m"

CALL_VARIANT_DEFAULTS: Dict[str, Any] = {
    "duplicate_notify_ms": None,
    "answered_elsewhere": None,
    "call_ids": "uuid",
    "display_names": "plain",
}

_serial = itertools.count(1)


def _optional_seconds(value: Any) -> Optional[float]:
    if value is None or value == "" or value == "off":
        return None
    if isinstance(value, bool):
        raise ValueError("must be a number >= 0 or null")
    number = float(value)
    if number != number or number < 0 or number > 3600:
        raise ValueError("must be a number >= 0 or null")
    return number


CALL_VARIANT_FIELDS: Dict[str, Callable[[Any], Any]] = {
    "duplicate_notify_ms": _optional_seconds,
    "answered_elsewhere": _optional_seconds,
    "call_ids": _choice(CALL_ID_STYLES),
    "display_names": _choice(DISPLAY_NAME_STYLES),
}


def add_call_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the call variant flags to the emulator's parser."""
    group = parser.add_argument_group("call variants (defaults = standard behaviour)")
    group.add_argument("--duplicate-notify", dest="duplicate_notify_ms", type=_arg(_optional_seconds),
                       default=None, metavar="MS",
                       help="send an incoming call's notifyIncomingCall again MS ms after the client's "
                            "answer was taken (a late INVITE retransmission) (default off)")
    group.add_argument("--answered-elsewhere", type=_arg(_optional_seconds), default=None, metavar="SECONDS",
                       help="another device answers every incoming call SECONDS after it rings: `talk` "
                            "without the client's answer (default off)")
    group.add_argument("--call-ids", choices=CALL_ID_STYLES, default="uuid",
                       help="ids of incoming calls: uuid, long (300 characters) or odd (/, .., ESC, bidi) "
                            "(default uuid)")
    group.add_argument("--display-names", choices=DISPLAY_NAME_STYLES, default="plain",
                       help="hostile: every caller's display name carries OSC 52, ESC [2J and a bidi "
                            "override (default plain)")


def call_variant_values(args: argparse.Namespace) -> Dict[str, Any]:
    """The call variant settings from parsed flags, as Settings keyword arguments."""
    return {name: getattr(args, name) for name in CALL_VARIANT_DEFAULTS}


def incoming_call_id(settings, requested: Optional[str]) -> str:
    """The id of a new incoming call: the one POST /ring asked for, else per --call-ids."""
    if requested is not None:
        return requested
    style = settings.call_ids
    if style == "long":
        return (f"long-{next(_serial)}-" + new_id().replace("-", "") * 10)[:300]
    if style == "odd":
        return f"../odd/{next(_serial)} \x1b[2J\u202e\u00e9t\u00e9/{new_id()[:8]}"
    return new_id()


def display_name(settings, given: Optional[str], caller: str) -> str:
    """The caller's display name: the one POST /ring gave, else per --display-names."""
    if given is not None:
        return given
    return HOSTILE_DISPLAY_NAME if settings.display_names == "hostile" else caller


class CallVariants:
    """Plays the call variants at their points of the call flow (calls.CallManager calls these)."""

    def __init__(self, emulator):
        self.emulator = emulator

    @property
    def settings(self):
        return self.emulator.settings

    def after_announce(self, call, manager) -> None:
        """A call was announced to the client: arm --answered-elsewhere."""
        delay = self.settings.answered_elsewhere
        if delay is None or not call.incoming:
            return
        manager._later(call, delay, self._answer_elsewhere, call, manager)

    async def _answer_elsewhere(self, call, manager) -> None:
        if call.state != RINGING:
            return
        log.info("call %s answered by another device", call.id)
        manager._established(call)
        call.answered_elsewhere = True
        await manager._status(call, "talk", "ESTABLISHED")

    def after_answer(self, call, manager) -> None:
        """The client's answer was taken (`talk` sent): arm --duplicate-notify."""
        delay_ms = self.settings.duplicate_notify_ms
        if delay_ms is None:
            return

        async def duplicate() -> None:
            await asyncio.sleep(delay_ms / 1000.0)
            if not call.live:
                return
            conn = manager._conn_of(call)
            if conn is None:
                return
            log.info("call %s: notifyIncomingCall sent again (late INVITE retransmission)", call.id)
            call.duplicate_notifies += 1
            await conn.send("notifyIncomingCall", [call.status_object("RING")])
        asyncio.get_running_loop().create_task(duplicate())
