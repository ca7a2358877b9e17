#!/usr/bin/python3
"""Regenerates aiortc-1.4-offer.sdp and aiortc-1.4-answer.sdp with a real aiortc.

Host addresses are limited to 127.0.0.1 and no ICE servers are used, so nothing leaves the
machine. Run from this directory: /usr/bin/python3 aiortc_generate_fixtures.py
"""
import asyncio

import aioice.ice

aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]

from aiortc import RTCConfiguration, RTCPeerConnection  # noqa: E402


async def main():
    offerer = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    answerer = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    offerer.addTransceiver("audio", direction="sendrecv")
    await offerer.setLocalDescription(await offerer.createOffer())
    await answerer.setRemoteDescription(offerer.localDescription)
    await answerer.setLocalDescription(await answerer.createAnswer())
    with open("aiortc-1.4-offer.sdp", "w", newline="") as f:
        f.write(offerer.localDescription.sdp)
    with open("aiortc-1.4-answer.sdp", "w", newline="") as f:
        f.write(answerer.localDescription.sdp)
    await offerer.close()
    await answerer.close()


asyncio.run(main())
