"""Self-test of the emulator's impairment layer (`--impair`, wcsemu/impair.py) and of external media
legs (`POST /ring` with `offer_sdp`, wcsemu/media_external.py); run from selftest_media.py.

Checks: the spec is parsed and bad specs are refused (flag, POST /config); the decisions are
deterministic per seed and match the asked loss rate and delay range; a live call under
`loss=20,jitter=30` loses about a fifth of its RTP both ways (counted in the emulator and at the
client) while a call without impairment loses nothing; an external leg's offer reaches the client
unchanged and the client's answer comes back in `GET /calls`, with no media run by the emulator.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulator_harness import PYTHON, HERE  # noqa: E402
from wcsemu.impair import Impairment, ImpairedPath, parse  # noqa: E402

LIVE_SPEC = "loss=20,jitter=30,seed=7"


def _decisions(impairment: Impairment, direction: str, count: int):
    path = ImpairedPath(impairment, direction, lambda data: None)
    return [path.decide() for _ in range(count)]


async def _peer_inbound(peer) -> dict:
    for stat in (await peer.pc.getStats()).values():
        if stat.type == "inbound-rtp":
            return {"received": stat.packetsReceived, "lost": stat.packetsLost}
    return {"received": 0, "lost": 0}


class ImpairmentChecks:
    """Checks that need a running emulator get the MediaChecks object (login, media stats, peer)."""

    def __init__(self, media_checks, client_peer_type):
        self.media = media_checks
        self.emu = media_checks.emu
        self.ClientPeer = client_peer_type

    async def impairment_spec_is_parsed_and_checked(self):
        spec = parse("loss=5,jitter=30,seed=1")
        assert spec == Impairment(loss=5, jitter=30, delay=0, seed=1), spec
        assert parse(spec.spec()) == spec and parse("none") is None and parse("") is None
        for bad in ("loss=5,", "loss=101", "jitter=-1", "loss=x", "burst=3", "seed=1.5", "loss=1,loss=2"):
            try:
                parse(bad)
            except ValueError:
                continue
            raise AssertionError(f"{bad!r} was accepted")
        for bad in ("loss=abc", 5):
            status, body = await asyncio.to_thread(self.emu.request, "POST", "/config", {"impair": bad})
            assert status == 400 and "impair" in body["error"], (status, body)
        changed = await self.emu.apost("/config", {"impair": "jitter=10,loss=2"})
        assert changed["impair"] == "loss=2,jitter=10,delay=0,seed=1", changed
        assert (await self.emu.apost("/config", {"impair": None}))["impair"] is None
        bad_flag = subprocess.run([PYTHON, os.path.join(HERE, "wcs_emulator.py"), "--impair", "loss=200"],
                                  capture_output=True, text=True, timeout=30)
        assert bad_flag.returncode == 2 and "impair" in bad_flag.stderr and not bad_flag.stdout, bad_flag

    async def impairment_is_deterministic(self):
        five = Impairment(loss=5, jitter=30, seed=1)
        first = _decisions(five, "send", 20000)
        assert first == _decisions(five, "send", 20000), "same seed, different decisions"
        assert first != _decisions(five, "receive", 20000), "both directions draw the same dice"
        assert first != _decisions(Impairment(loss=5, jitter=30, seed=2), "send", 20000)
        lost = first.count(None) / len(first)
        assert 0.04 < lost < 0.06, lost
        delays = [d for d in first if d is not None]
        assert min(delays) >= 0 and max(delays) <= 0.030 and 0.013 < sum(delays) / len(delays) < 0.017
        fixed = _decisions(Impairment(delay=40), "send", 100)
        assert fixed == [0.040] * 100, fixed[:3]

    async def _call(self, login: str, seconds: float):
        client = await self.media._login(login)
        ring = await self.emu.apost("/ring", {"login": login, "caller": "2000"})
        _, offer = await client.expect("setRemoteSDP")
        peer = self.ClientPeer()
        await client.send("answer", {"callId": ring["callId"], "sdp": await peer.answer(offer)})
        await client.expect("talk")
        for _ in range(int(seconds * 10) + 100):
            await asyncio.sleep(0.1)
            if peer.received_seconds() >= seconds:
                break
        media = await self.media._media(ring["callId"])
        inbound = await _peer_inbound(peer)
        await client.send("hangup", {"callId": ring["callId"]})
        await client.expect("finish")
        await peer.close()
        await client.close()
        return media, inbound

    async def impaired_call_loses_packets_both_ways(self):
        await self.emu.apost("/config", {"impair": LIVE_SPEC})
        try:
            media, inbound = await self._call("1106", 3.0)
        finally:
            await self.emu.apost("/config", {"impair": None})
        counters = media.get("impairment")
        assert counters, media
        for way in ("send", "receive"):
            total = counters[way]["passed"] + counters[way]["dropped"]
            assert total > 100 and 0.12 < counters[way]["dropped"] / total < 0.28, counters
        assert media["packets_received"] <= counters["receive"]["passed"], (media, counters)
        seen = inbound["received"] + inbound["lost"]
        assert seen > 100 and 0.12 < inbound["lost"] / seen < 0.28, inbound
        clean, clean_inbound = await self._call("1106", 1.5)
        assert "impairment" not in clean and clean_inbound["lost"] == 0, (clean, clean_inbound)

    async def external_leg_relays_sdp_only(self):
        client = await self.media._login("1107")
        offer_peer = self.ClientPeer()
        await offer_peer.offer()
        offer = offer_peer.pc.localDescription.sdp  # with its candidates: the answerer sends none
        status, body = await asyncio.to_thread(self.emu.request, "POST", "/ring", {"login": "1107", "offer_sdp": offer,
                                                                 "fault": "fingerprint"})
        assert status == 400 and "offer_sdp" in body["error"], (status, body)
        ring = await self.emu.apost("/ring", {"login": "1107", "caller": "2000", "offer_sdp": offer})
        call_id, relayed = await client.expect("setRemoteSDP")
        assert call_id == ring["callId"] and relayed == offer, "the external offer was changed"
        answer_peer = self.ClientPeer()
        answer = await answer_peer.answer(relayed)
        await client.send("answer", {"callId": call_id, "sdp": answer})
        await client.expect("talk")
        call = (await self.emu.aget(f"/calls?callId={call_id}"))[0]
        assert call["answer_sdp"] == answer and call["media"] == {"engine": "external"}, call
        await offer_peer.accept(call["answer_sdp"])  # the two peers now talk directly
        for _ in range(100):
            await asyncio.sleep(0.1)
            if offer_peer.received_seconds() >= 1.0 and answer_peer.received_seconds() >= 1.0:
                break
        assert offer_peer.received_seconds() >= 1.0 and answer_peer.received_seconds() >= 1.0
        await client.send("hangup", {"callId": call_id})
        await client.expect("finish")
        await offer_peer.close()
        await answer_peer.close()
        await client.close()


NAMES = ("impairment_spec_is_parsed_and_checked", "impairment_is_deterministic",
         "impaired_call_loses_packets_both_ways", "external_leg_relays_sdp_only")
