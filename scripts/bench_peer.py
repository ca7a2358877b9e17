"""Drives `wcs-bench-peer` (Benchmarks/wcs-bench-peer) for `make bench`: JSON lines both ways.

Calls to a WCS client (the agent, or the aiortc answerer): the peer makes the offer, the driver rings
the client through the emulator with it (`POST /ring` with `offer_sdp`, an external media leg),
waits for the client's answer in `GET /calls`, and hands it to the peer. Calls between two peers (the
AudioPipe-only series): one peer offers, the other answers (`answer_offer`), no emulator involved.
"""
import itertools
import json
import queue
import subprocess
import threading
import time

from bench_rig import peer_binary

_ids = itertools.count(1)


class Peer:
    """One wcs-bench-peer process; replies are matched by call id, events queued per call.

    cheap=True (`--cheap`) for far ends whose CPU is not the figure: its calls replay pre-encoded
    Opus and decode only one received packet in 50 (still real ICE, DTLS-SRTP and RTP; see
    Benchmarks/wcs-bench-peer/PeerMode.swift). The measured AudioPipe-alone answerer stays full.
    """

    def __init__(self, procs, log_path, cheap=False):
        self.cheap = cheap
        self.proc = subprocess.Popen([peer_binary(), *(["--cheap"] if cheap else [])], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
        procs.append(self.proc)
        self.replies = {}
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self):
        return self.proc.pid

    def _read(self):
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            key = message.get("id") or message.get("event")
            with self.lock:
                self.replies.setdefault(key, []).append(message)
                self.lock.notify_all()

    def send(self, **command):
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def expect(self, key, predicate, timeout=30.0):
        """The first message under `key` (a call id, or "stats") matching predicate; raises on timeout."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for message in self.replies.get(key, []):
                    if message.get("event") == "failed":
                        raise RuntimeError(f"peer call {key} failed: {message.get('reason')}")
                    if predicate(message):
                        self.replies[key].remove(message)
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"peer: nothing for {key}")
                self.lock.wait(remaining)

    def stats(self):
        self.send(op="stats")
        return self.expect("stats", lambda m: True)

    def check(self):
        """What the peer's calls received: {calls, received, lost} and, for a cheap peer, what its
        sampled decoder found: {decoded, checked, failed, quietest_db, loudest_db} over all calls."""
        calls = self.stats()["calls"]
        result = {"calls": len(calls), "received": sum(c["received"] for c in calls),
                  "lost": sum(c["lost"] for c in calls)}
        found = [c["verify"] for c in calls if "verify" in c]
        if found:
            result.update({key: sum(f[key] for f in found) for key in ("decoded", "checked", "failed")})
            result["quietest_db"] = min(f["quietest_db"] for f in found)
            result["loudest_db"] = max(f["loudest_db"] for f in found)
        return result

    def close(self, call_id):
        self.send(op="close", id=call_id)

    def quit(self):
        self.send(op="quit")
        self.proc.wait(timeout=15)


def call_client(rig, peer, login):
    """Rings `login` with a peer-made offer; returns (peer call id, emulator callId) once answered."""
    pid = f"c{next(_ids)}"
    peer.send(op="offer", id=pid)
    offer = peer.expect(pid, lambda m: "offer" in m)["offer"]
    ring = rig.control("POST", "/ring", {"login": login, "caller": "2000", "offer_sdp": offer})
    deadline = time.monotonic() + 30
    while True:
        call = rig.control("GET", f"/calls?callId={ring['callId']}")[0]
        if call.get("answer_sdp"):
            break
        if call["state"] in ("ended", "failed") or time.monotonic() > deadline:
            raise RuntimeError(f"call {ring['callId']} not answered: {call['state']} {call.get('end_reason')}")
        time.sleep(0.005)
    peer.send(op="answer", id=pid, sdp=call["answer_sdp"])
    return pid, ring["callId"]


def call_peer(offerer, answerer):
    """A call between two peers; returns its id (the same on both)."""
    pid = f"p{next(_ids)}"
    offerer.send(op="offer", id=pid)
    offer = offerer.expect(pid, lambda m: "offer" in m)["offer"]
    answerer.send(op="answer_offer", id=pid, sdp=offer)
    answer = answerer.expect(pid, lambda m: "answer" in m)["answer"]
    offerer.send(op="answer", id=pid, sdp=answer)
    return pid


def first_audio(peer, pid, timeout=30.0):
    """Waits for the peer's first decoded frame on call `pid`; returns its ms since the answer."""
    return peer.expect(pid, lambda m: m.get("event") == "first_audio", timeout)["ms"]
