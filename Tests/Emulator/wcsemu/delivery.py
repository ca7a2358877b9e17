"""Honesty about incoming calls: every call the emulator could not deliver to a client, and why.

A call (a simulated INVITE, POST /ring) is delivered when a client socket was told about it
(`notifyIncomingCall`, live or replayed after a resume). It is undeliverable when:

- `no_session`: its login has no live session at all (never logged in, or the session was lost:
  TTL expired, server restart);
- `not_registered`: the login has sessions, but none is registered with the fake PBX;
- `push_failed`: the session is kept but detached and the push could not go out (no push target is
  configured, or every delivery failed);
- `never_announced`: the push went out, but the call ended (the caller gave up, a SIP hangup) before
  any client came back to hear about it.

GET /undeliverable lists them (README "Control API"); a run that promises "no call missed" checks
that its count is 0. Runs on the emulator's asyncio loop, like everything in wcsemu.
"""
from __future__ import annotations

import collections
import logging
import time
from typing import Any, Dict, List, Optional

log = logging.getLogger("wcsemu.delivery")

REASONS = ("no_session", "not_registered", "push_failed", "never_announced")


class DeliveryLedger:
    """Which incoming calls reached a client, and the reason for each that did not."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.announced: set = set()
        self.undeliverable: Dict[str, Dict[str, Any]] = collections.OrderedDict()

    def no_route(self, call) -> str:
        """A call found no registered session: records `no_session` or `not_registered`; returns it."""
        sessions = self.emulator.sessions.for_login(call.login) if call.login else []
        reason = "not_registered" if sessions else "no_session"
        detail = (f"{len(sessions)} session(s) of {call.login}, none registered" if sessions
                  else f"no session of {call.login}")
        self._record(call, reason, detail)
        return reason

    def on_announced(self, call) -> None:
        """A client socket was told about the call."""
        self.announced.add(call.id)

    def on_push_outcome(self, call, record: Dict[str, Any], targets: int) -> None:
        """Every delivery of the call's push has finished (or there was no target)."""
        if targets == 0:
            self._record(call, "push_failed", "no push target configured")
            return
        deliveries = record.get("deliveries", [])
        if len(deliveries) >= targets and not any(d.get("ok") for d in deliveries):
            self._record(call, "push_failed", "every push delivery failed: "
                         + "; ".join(str(d.get("error", d.get("status", d.get("exit")))) for d in deliveries))

    def on_ended(self, call) -> None:
        """A call ended: a pushed incoming call no client ever heard of is `never_announced`."""
        if call.incoming and call.pushed and call.id not in self.announced and call.id not in self.undeliverable:
            self._record(call, "never_announced", f"ended ({call.end_reason}) before a client came back")

    def _record(self, call, reason: str, detail: str) -> None:
        if call.id in self.undeliverable:
            return
        self.undeliverable[call.id] = {"callId": call.id, "login": call.login, "caller": call.caller,
                                       "reason": reason, "detail": detail, "time": time.time()}
        log.info("call %s to %s undeliverable: %s (%s)", call.id, call.login, reason, detail)

    def reason_of(self, call_id: str) -> Optional[str]:
        entry = self.undeliverable.get(call_id)
        return entry["reason"] if entry else None

    def view(self, login: Optional[str] = None, since: float = 0.0) -> Dict[str, Any]:
        """GET /undeliverable: count, count by reason, and the calls, oldest first."""
        calls: List[Dict[str, Any]] = [dict(e) for e in self.undeliverable.values()
                                       if (login is None or e["login"] == login) and e["time"] >= since]
        by_reason = {reason: 0 for reason in REASONS}
        for entry in calls:
            by_reason[entry["reason"]] += 1
        return {"count": len(calls), "by_reason": by_reason, "calls": calls}
