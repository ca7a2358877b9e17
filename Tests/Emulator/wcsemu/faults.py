"""Transient faults at every layer a client crosses, and a node that goes down and comes back.

A phone must retry every failure that may be transient. These switches make each one happen, once or
N times, so a client's retry can be tested where it applies (README "Faults"; POST /faults):

- `handshake_stall`: the listener stops accepting. TCP still connects (the kernel's backlog), but
  the TLS handshake (wss) or the HTTP upgrade (ws) is never answered: a stalled node. Off again, the
  queued sockets are accepted (their clients are usually gone by then).
- `upgrade_refuse_next` N: the next N WebSocket upgrades are answered `503 Service Unavailable` with
  `Retry-After: upgrade_retry_after` seconds (omitted when null), as a loaded WCS behind a proxy does.
- `close_1013_next` N: the next N sockets are closed with 1013 "Try again later" after their first
  frame, before any session (the admission limit's refusal, on demand).
- `registrar_fail_next` N: the next N fresh logins get a registration failure with
  `registrar_fail_status` (default CONNECTION_ERROR: the registrar did not answer the PBX).
- `registrar_silent_next` N: the next N fresh logins get no registration reply at all (a registrar
  slow past the client's timeout).
- `down` (POST /down): the node dies: every socket is dropped without a close frame and the port
  refuses connections (ECONNREFUSED) until POST /up. `forget: true` also loses every session, like a
  restarted node. The process, its counters and its logs stay.

Each fault that fires is counted (`fired`) with the time of its last use, so a test can tell the fault
happened. Runs on the emulator's asyncio loop (like everything in wcsemu), so it needs no locks.
"""
from __future__ import annotations

import http
import logging
import time
from typing import Any, Dict, Optional

from .converters import integer_at_least

log = logging.getLogger("wcsemu.faults")

#: Registration failure status used by registrar_fail_next unless registrar_fail_status says otherwise.
DEFAULT_REGISTRAR_STATUS = "CONNECTION_ERROR"

_count = integer_at_least(0)


def _retry_after(value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("must be seconds >= 0 or null")
    number = float(value)
    if number != number or number < 0 or number > 86400:
        raise ValueError("must be seconds in 0..86400 or null")
    return number


def _status(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 64:
        raise ValueError("must be a non-empty status string (at most 64 characters)")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


#: POST /faults keys with their validating converters.
FAULT_FIELDS = {
    "handshake_stall": _flag,
    "upgrade_refuse_next": _count,
    "upgrade_retry_after": _retry_after,
    "close_1013_next": _count,
    "registrar_fail_next": _count,
    "registrar_fail_status": _status,
    "registrar_silent_next": _count,
}


class Faults:
    """The fault switches and their counters."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.handshake_stall = False
        self.upgrade_refuse_next = 0
        self.upgrade_retry_after: Optional[float] = 5.0
        self.close_1013_next = 0
        self.registrar_fail_next = 0
        self.registrar_fail_status = DEFAULT_REGISTRAR_STATUS
        self.registrar_silent_next = 0
        self.fired: Dict[str, Dict[str, Any]] = {}

    def view(self) -> Dict[str, Any]:
        """GET /faults: every switch and what fired so far."""
        state = {name: getattr(self, name) for name in FAULT_FIELDS}
        state["down"] = self.emulator.listener.down if self.emulator.listener else False
        state["fired"] = {name: dict(entry) for name, entry in self.fired.items()}
        return state

    def update(self, changes: Dict[str, Any]) -> None:
        """POST /faults: applies every change or none (ValueError names the bad one)."""
        parsed = {}
        for key, value in changes.items():
            converter = FAULT_FIELDS.get(key)
            if converter is None:
                raise ValueError(f"unknown fault: {key}")
            try:
                parsed[key] = converter(value)
            except (TypeError, ValueError) as error:
                raise ValueError(f"bad value for {key}: {error}") from None
        for key, value in parsed.items():
            setattr(self, key, value)
        if "handshake_stall" in parsed and self.emulator.listener is not None:
            self.emulator.listener.stall(parsed["handshake_stall"])
        log.info("faults now %s", {k: getattr(self, k) for k in FAULT_FIELDS})

    def _fire(self, name: str) -> None:
        entry = self.fired.setdefault(name, {"count": 0, "last": None})
        entry["count"] += 1
        entry["last"] = time.time()

    def note(self, name: str) -> None:
        """Counts a fault that fired elsewhere (the stall, a down node's refusals)."""
        self._fire(name)

    # -- hooks ------------------------------------------------------------------------------------

    async def process_request(self, path: str, headers) -> Optional[tuple]:
        """websockets' process_request: 503 + Retry-After for the next N upgrades, else go on."""
        if self.upgrade_refuse_next <= 0:
            return None
        self.upgrade_refuse_next -= 1
        self._fire("upgrade_refused")
        extra = []
        if self.upgrade_retry_after is not None:
            extra.append(("Retry-After", f"{self.upgrade_retry_after:g}"))
        log.info("upgrade of %s refused: 503%s", path,
                 f" Retry-After {self.upgrade_retry_after:g}" if self.upgrade_retry_after is not None else "")
        return http.HTTPStatus.SERVICE_UNAVAILABLE, extra, b"busy, try again later\n"

    def take_close_1013(self) -> bool:
        """True when this new socket is to be closed with 1013 (consumes one)."""
        if self.close_1013_next <= 0:
            return False
        self.close_1013_next -= 1
        self._fire("closed_1013")
        return True

    def registration_fault(self) -> Optional[str]:
        """For a fresh login's registration: "silent", "fail" or None (normal); consumes one."""
        if self.registrar_silent_next > 0:
            self.registrar_silent_next -= 1
            self._fire("registrar_silent")
            return "silent"
        if self.registrar_fail_next > 0:
            self.registrar_fail_next -= 1
            self._fire("registrar_failed")
            return "fail"
        return None
