#!/usr/bin/python3
"""The aiortc 1.4 comparison peer of `make bench`: a WCS client that answers every incoming call.

It logs in to the emulator like wcs-agent does (keepAlive, SIP registration), answers each
`setRemoteSDP` + `notifyIncomingCall` with an aiortc RTCPeerConnection that plays an 880 Hz tone and
decodes what it receives, and prints JSON lines on stdout: `{"event":"ready"}` once registered,
`{"event":"first_audio","call_id","ms"}` (ms from the offer's arrival to the first decoded frame)
and `{"event":"ended","call_id"}`. The SIP password is read from the file given (never argv).

Usage: bench_aiortc_answerer.py WS_URL LOGIN PASSWORD_FILE   (SIGTERM ends it)
"""
import asyncio
import json
import os
import sys
import time

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "Emulator"))
from wcsemu.audio import ToneTrack  # noqa: E402
import wcsemu.media_webrtc  # noqa: E402,F401  (loopback-only ICE for aioice, as in the emulator)
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription  # noqa: E402


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Answerer:
    """One WebSocket session; one RTCPeerConnection per call. Runs on one asyncio loop."""

    def __init__(self, ws):
        self.ws = ws
        self.offers = {}
        self.calls = {}

    async def send(self, name, obj):
        await self.ws.send(json.dumps({"message": name, "data": [obj]}))

    async def on_frame(self, name, data):
        if name == "ping":
            await self.send("pong", None)
        elif name == "registered":
            emit({"event": "ready"})
        elif name == "setRemoteSDP":
            self.offers[data[0]] = (data[1], time.monotonic())
        elif name == "notifyIncomingCall" and data[0]["callId"] in self.offers:
            await self.answer(data[0]["callId"])
        elif name == "finish" and data[0]["callId"] in self.calls:
            await self.calls.pop(data[0]["callId"]).close()
            emit({"event": "ended", "call_id": data[0]["callId"]})

    async def answer(self, call_id):
        offer, received = self.offers.pop(call_id)
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.calls[call_id] = pc

        @pc.on("track")
        def on_track(track):
            asyncio.ensure_future(self.consume(call_id, track, received))

        await pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        pc.addTrack(ToneTrack(880))
        await pc.setLocalDescription(await pc.createAnswer())
        await self.send("answer", {"callId": call_id, "sdp": pc.localDescription.sdp})

    @staticmethod
    async def consume(call_id, track, received):
        first = True
        try:
            while True:
                await track.recv()
                if first:
                    emit({"event": "first_audio", "call_id": call_id, "ms": (time.monotonic() - received) * 1000})
                    first = False
        except Exception:
            pass


async def main(url, login, password_file):
    with open(password_file) as f:
        password = f.read().strip()
    async with websockets.connect(url, ping_interval=None) as ws:
        answerer = Answerer(ws)
        await answerer.send("connection", {
            "appKey": "defaultApp", "mediaProviders": ["WebRTC"], "keepAlive": True, "sipLogin": login,
            "sipAuthenticationName": login, "sipPassword": password, "sipDomain": "127.0.0.1",
            "sipRegisterRequired": True})
        async for message in ws:
            frame = json.loads(message)
            await answerer.on_frame(frame.get("message"), frame.get("data") or [None])


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
