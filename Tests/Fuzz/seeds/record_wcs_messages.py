#!/usr/bin/python3
"""Records real server frames from the WCS emulator as seeds for the wcs-message harness.

Usage: /usr/bin/python3 Tests/Fuzz/seeds/record_wcs_messages.py [OUT_DIR]
(default Tests/Fuzz/wcs-message/corpus). Plays a login, an incoming call answered and hung up by
the far end, an outgoing call with hold, a busy and a failed call, a transfer, a resume, a bad
token, a malformed frame; writes every distinct text frame the emulator sent, one file each,
named after its message. Each seed starts with one byte the harness uses as a split point.
"""
import asyncio
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Emulator"))
from emulator_harness import Emulator, connect  # noqa: E402
from selftest import CLIENT_ANSWER, CLIENT_OFFER  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "wcs-message", "corpus")


async def play(emu, frames):
    client = await connect(emu.url)
    user = await client.login("1001", "pw1")
    await client.expect("registered")
    ring = await emu.apost("/ring", {"login": "1001", "caller": "2002", "display_name": "Bob"})
    await client.expect("ring")
    await client.send("answer", {"callId": ring["callId"], "sdp": CLIENT_ANSWER})
    await client.expect("talk")
    await emu.apost("/hangup", {"callId": ring["callId"]})
    await client.expect("finish")
    await client.send("call", {"callId": "c-1", "callee": "3001", "sdp": CLIENT_OFFER})
    await client.expect("talk")
    await client.send("hold", {"callId": "c-1"})
    await client.expect("hold")
    await client.send("hangup", {"callId": "c-1"})
    await client.expect("finish")
    await emu.apost("/callee", {"number": "3002", "behavior": "busy", "delay": 0})
    await emu.apost("/callee", {"number": "3003", "behavior": "fail"})
    for call_id, callee in (("c-busy", "3002"), ("c-fail", "3003")):
        await client.send("call", {"callId": call_id, "callee": callee, "sdp": CLIENT_OFFER})
        await client.expect("finish", where=lambda d, c=call_id: d[0]["callId"] == c)
    await client.send("call", {"callId": "c-xfer", "callee": "3005", "sdp": CLIENT_OFFER})
    await client.expect("talk")
    await client.send("transfer", {"callId": "c-xfer", "target": "3006"})
    await client.expect("finish")
    await client.quiet(0.3)
    frames += client.received
    client.abort()
    await asyncio.sleep(0.3)
    again = await connect(emu.url)
    await again.resume(user["authToken"])
    await again.expect("getUserData")
    await again.quiet(0.3)
    frames += again.received
    await again.close()
    bad = await connect(emu.url)
    await bad.resume("not-a-token")
    await bad.quiet(0.5)
    frames += bad.received
    await bad.close()


async def main():
    emu = Emulator("--media", "fixed", "--user", "1001:pw1")
    frames = []
    try:
        await play(emu, frames)
    finally:
        emu.stop()
        emu.remove_log()
    os.makedirs(OUT, exist_ok=True)
    seen = set()
    for name, data in frames:
        text = json.dumps({"message": name, "data": data}, separators=(",", ":"))
        if text in seen:
            continue
        seen.add(text)
        count = sum(1 for f in os.listdir(OUT) if f.startswith("emulator-" + name + "-"))
        with open(os.path.join(OUT, "emulator-%s-%d" % (name, count + 1)), "wb") as f:
            f.write(bytes([len(text) // 2 % 256]) + text.encode())
    print("%d frames written to %s" % (len(seen), OUT))


asyncio.run(main())
