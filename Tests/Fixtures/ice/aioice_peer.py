#!/usr/bin/python3
"""An aioice 0.8 ICE peer for the ICEAgent interop tests, on 127.0.0.1 only.

Usage: aioice_peer.py controlling|controlled [echo_count]

stdout (one JSON object per line):
  {"ufrag", "pwd", "candidates": ["candidate:..."]}   our parameters, after gathering
  {"event": "connecting"}                              just before Connection.connect()
  {"event": "connected", "local": {...}, "remote": {...}}   nominated pair (type/host/port)
  {"event": "done", "echoed": N}                       after echoing N datagrams
  {"event": "failed", "error": "..."}                  connect() or echo failed (exit 1)
stdin: one JSON line {"ufrag", "pwd", "candidates": [...], "endOfCandidates": bool}.
Each received datagram is sent back unchanged. No STUN/TURN server is used.
"""
import asyncio
import json
import signal
import sys

import aioice
import aioice.ice

# aioice drops loopback addresses from its host candidates; the tests run on 127.0.0.1 only.
aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]


def emit(obj):
    print(json.dumps(obj), flush=True)


def describe(candidate):
    return {"type": candidate.type, "host": candidate.host, "port": candidate.port}


async def main():
    # Signals inherited blocked from the test process (c-interop-notes pitfall 14).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    controlling = sys.argv[1] == "controlling"
    echo_count = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    conn = aioice.Connection(ice_controlling=controlling, components=1, use_ipv6=False)
    await conn.gather_candidates()
    emit({"ufrag": conn.local_username, "pwd": conn.local_password,
          "candidates": ["candidate:" + c.to_sdp() for c in conn.local_candidates]})

    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    remote = json.loads(line)
    conn.remote_username = remote["ufrag"]
    conn.remote_password = remote["pwd"]
    for text in remote["candidates"]:
        if text.startswith("candidate:"):
            text = text[len("candidate:"):]
        await conn.add_remote_candidate(aioice.Candidate.from_sdp(text))
    if remote.get("endOfCandidates", True):
        await conn.add_remote_candidate(None)

    emit({"event": "connecting"})
    try:
        await asyncio.wait_for(conn.connect(), 20)
        pair = conn._nominated[1]  # private, but the only way to see the nominated pair
        emit({"event": "connected", "local": describe(pair.local_candidate),
              "remote": describe(pair.remote_candidate)})
        for _ in range(echo_count):
            data = await asyncio.wait_for(conn.recv(), 10)
            await conn.send(data)
        emit({"event": "done", "echoed": echo_count})
        # Keep answering consent checks until the test is done with us (it kills us).
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    except Exception as error:  # report every failure to the test, then exit non-zero
        emit({"event": "failed", "error": repr(error)})
        sys.exit(1)
    finally:
        await conn.close()


asyncio.run(main())
