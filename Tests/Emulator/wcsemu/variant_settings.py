"""Flags and run-time settings of the server variants (behaviours a real WCS may show; see variants.py).

Every variant defaults to the emulator's standard behaviour, so a run without these flags is
message-for-message the same as before they existed. Each one is also a POST /config key.
"""
from __future__ import annotations

import argparse
from typing import Any, Callable, Dict, Optional

from .call_variants import CALL_VARIANT_DEFAULTS, CALL_VARIANT_FIELDS, add_call_variant_arguments
from .converters import argparse_type as _arg, choice as _choice, integer_at_least

RESUME_REGISTERED_MODES = ("no", "yes")
RESUME_TOKEN_MODES = ("same", "rotate", "once")
SESSION_ID_MODES = ("send", "omit")
RESTART_SESSION_MODES = ("forget", "keep")
REGISTERED_ORDERS = ("after", "before")
DETACHED_FINISH_MODES = ("silent", "replay")

#: Default of every variant setting (the emulator's standard behaviour).
VARIANT_DEFAULTS: Dict[str, Any] = {
    "resume_registered": "no",
    "resume_token": "same",
    "registered_order": "after",
    "resume_drop_ms": None,
    "resume_drop_count": 0,
    "detached_finish": "silent",
    "connection_delay": 0.0,
    "ice_lite": False,
    "session_id": "send",
    "restart_sessions": "forget",
    **CALL_VARIANT_DEFAULTS,
}


def _optional_ms(value: Any) -> Optional[float]:
    if value is None or value == "" or value == "off":
        return None
    if isinstance(value, bool):
        raise ValueError("must be milliseconds >= 0 or null")
    number = float(value)
    if number != number or number < 0:
        raise ValueError("must be milliseconds >= 0 or null")
    return number


def _seconds(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("must be a number >= 0")
    number = float(value)
    if number != number or number < 0 or number > 600:
        raise ValueError("must be a number of seconds in 0..600")
    return number


_drop_count = integer_at_least(0)


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "yes", "on", "1"):
        return True
    if value in ("false", "no", "off", "0"):
        return False
    raise ValueError("must be true or false")


#: Variant settings POST /config may change, with their validating converters.
VARIANT_FIELDS: Dict[str, Callable[[Any], Any]] = {
    "resume_registered": _choice(RESUME_REGISTERED_MODES),
    "resume_token": _choice(RESUME_TOKEN_MODES),
    "registered_order": _choice(REGISTERED_ORDERS),
    "resume_drop_ms": _optional_ms,
    "resume_drop_count": _drop_count,
    "detached_finish": _choice(DETACHED_FINISH_MODES),
    "connection_delay": _seconds,
    "ice_lite": _flag,
    "session_id": _choice(SESSION_ID_MODES),
    "restart_sessions": _choice(RESTART_SESSION_MODES),
    **CALL_VARIANT_FIELDS,
}


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the server-variant flags (README "Server variants") to the emulator's parser."""
    group = parser.add_argument_group("server variants (defaults = standard behaviour)")
    group.add_argument("--resume-registered", choices=RESUME_REGISTERED_MODES, default="no",
                       help="re-send `registered` after a token resume of a registered session (default no)")
    group.add_argument("--resume-token", choices=RESUME_TOKEN_MODES, default="same",
                       help="token in a resume's getUserData: the same one, a new one for the same "
                            "session (rotate: the old token stops working), or once: every token is spent "
                            "the moment a `connection` presents it, even if the resume then fails "
                            "(default same)")
    group.add_argument("--session-id", choices=SESSION_ID_MODES, default="send",
                       help="getUserData carries sessionId (send), or not (omit: the field is inferred "
                            "in the protocol notes) (default send)")
    group.add_argument("--restart-sessions", choices=RESTART_SESSION_MODES, default="forget",
                       help="what POST /restart does to sessions: forget every one (tokens refused "
                            "after), or keep the keepAlive ones detached (default forget)")
    group.add_argument("--registered-order", choices=REGISTERED_ORDERS, default="after",
                       help="`registered` after getUserData, or before it (default after)")
    group.add_argument("--resume-drop-ms", type=_arg(_optional_ms), default=None, metavar="MS",
                       help="drop TCP (no close frame) MS milliseconds after a resume's getUserData "
                            "(default off)")
    group.add_argument("--resume-drop-count", type=_arg(_drop_count), default=0, metavar="N",
                       help="with --resume-drop-ms: drop only the next N resumes, 0 = every one (default 0)")
    group.add_argument("--detached-finish", choices=DETACHED_FINISH_MODES, default="silent",
                       help="calls that end while the socket is detached: no message, or their `finish` "
                            "replayed after the resume's getUserData (default silent)")
    group.add_argument("--connection-delay", type=_arg(_seconds), default=0.0, metavar="SECONDS",
                       help="answer every `connection` (login or resume) this late; pings go on "
                            "(default 0)")
    group.add_argument("--ice-lite", action="store_true",
                       help="the aiortc WebRTC leg is ICE-lite: `a=ice-lite` in its SDP, always controlled, "
                            "never sends connectivity checks")
    add_call_variant_arguments(parser)


def variant_values(args: argparse.Namespace) -> Dict[str, Any]:
    """The variant settings from parsed flags, as Settings keyword arguments."""
    return {name: getattr(args, name) for name in VARIANT_DEFAULTS}
