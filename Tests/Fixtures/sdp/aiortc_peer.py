#!/usr/bin/python3
"""A real aiortc peer for SDP interop tests, driven over stdin/stdout.

Modes:
  offer-then-accept  print an aiortc offer followed by a line "--END--", read an answer from
                     stdin until EOF, apply it with setRemoteDescription; print "ACCEPTED" and
                     exit 0, or print "REJECTED: <reason>" and exit 1.
  answer-offer       read an offer from stdin until EOF, apply it, print aiortc's answer and
                     exit 0, or print "REJECTED: <reason>" and exit 1.
Only 127.0.0.1 is used for candidates and no ICE servers are configured.
"""
import asyncio
import signal
import sys

import aioice.ice

aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription  # noqa: E402

# Test runners start children with most signals blocked; let SIGTERM/SIGINT work again.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})


async def offer_then_accept():
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver("audio", direction="sendrecv")
    await pc.setLocalDescription(await pc.createOffer())
    sys.stdout.write(pc.localDescription.sdp)
    sys.stdout.write("--END--\n")
    sys.stdout.flush()
    answer = sys.stdin.read()
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    except Exception as error:  # report any refusal as text
        print(f"REJECTED: {type(error).__name__}: {error}", flush=True)
        await pc.close()
        return 1
    print("ACCEPTED", flush=True)
    await pc.close()
    return 0


async def answer_offer():
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    offer = sys.stdin.read()
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
    except Exception as error:
        print(f"REJECTED: {type(error).__name__}: {error}", flush=True)
        await pc.close()
        return 1
    sys.stdout.write(pc.localDescription.sdp)
    sys.stdout.flush()
    await pc.close()
    return 0


MODES = {"offer-then-accept": offer_then_accept, "answer-offer": answer_offer}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        print("usage: aiortc_peer.py offer-then-accept|answer-offer", file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(MODES[sys.argv[1]]()))
