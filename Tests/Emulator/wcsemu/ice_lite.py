"""ICE-lite for the aiortc WebRTC leg (server variant --ice-lite; protocol notes open question 10).

aiortc/aioice 0.8 only implement a full ICE agent; they understand a *remote* lite peer but cannot be
lite themselves. This module turns one call's aioice Connection into a lite agent (RFC 8445 §2.5):

- it never sends connectivity checks (nor consent checks) and only answers the peer's;
- it is always controlled: a peer that also claims the controlled role gets 487 (Role Conflict) to
  every check, so a full agent must switch to controlling (RFC 8445 §7.3.1.1) or fail;
- a pair becomes valid when a check arrives on it, and selected when the (controlling) peer nominates
  it with USE-CANDIDATE;
- the SDP carries a session-level `a=ice-lite`.

Runs on the emulator's asyncio loop. It patches attributes of one aioice Connection instance (aioice
has no lite mode or hook for it); nothing global is changed.
"""
from __future__ import annotations

import logging

from aioice.ice import CandidatePair

log = logging.getLogger("wcsemu.icelite")


def mark_sdp_lite(sdp: str) -> str:
    """Adds a session-level `a=ice-lite` line (after `t=`), unless the SDP has one."""
    lines = sdp.split("\r\n")
    if "a=ice-lite" in lines:
        return sdp
    for index, line in enumerate(lines):
        if line.startswith("t="):
            lines.insert(index + 1, "a=ice-lite")
            break
    return "\r\n".join(lines)


def make_lite(pc, label: str) -> None:
    """Turns the ICE agent of a peer connection's single transceiver into a controlled lite agent.

    Call it after the transceiver exists (addTrack, or the remote offer applied) and before the local
    description is set, so that aiortc neither picks the role itself nor starts checks first.
    """
    ice_transport = pc.getTransceivers()[0].sender.transport.transport
    ice_transport._role_set = True  # aiortc would make the offerer controlling
    connection = ice_transport._connection
    connection.ice_controlling = False
    connection._tie_breaker = 0  # any controlled peer's tie-breaker is larger: it gets 487
    connection.switch_role = lambda ice_controlling: log.info(
        "%s: lite agent stays controlled (peer asked for a role switch)", label)
    original_incoming = connection.check_incoming

    async def no_check(pair) -> None:
        """Lite agents send no checks: a pair waits for the peer's check."""
        if pair.state in (CandidatePair.State.WAITING, CandidatePair.State.FROZEN):
            pair.state = CandidatePair.State.IN_PROGRESS

    async def no_consent() -> None:
        return None

    def check_incoming(message, addr, protocol) -> None:
        original_incoming(message, addr, protocol)
        pair = next((p for p in connection._check_list
                     if p.protocol is protocol and p.remote_addr == addr), None)
        if pair is None:
            return
        if pair.state != CandidatePair.State.SUCCEEDED:
            pair.state = CandidatePair.State.SUCCEEDED
        if "USE-CANDIDATE" in message.attributes and not pair.nominated:
            log.info("%s: lite agent: pair %s nominated by the peer", label, pair)
            pair.nominated = True
            connection.check_complete(pair)

    connection.check_start = no_check
    connection.query_consent = no_consent
    connection.check_incoming = check_incoming

