#!/usr/bin/python3
"""Media self-test of the WCS emulator (--media aiortc): a second aiortc peer plays the client.

Checks: an incoming call answered with an SDP without candidates carries tone both ways and is
recorded; an outgoing call whose offer has no candidates connects; a client that never does ICE fails
the call with "Failed by ICE error"; a wrong DTLS fingerprint fails it with
"Failed by DTLS fingerprint error".

Usage: /usr/bin/python3 Tests/Emulator/selftest_media.py   (exit status 0 when every check passes)
"""
from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
import wave

import aioice.ice
import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

from emulator_harness import Emulator, Runner, connect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcsemu.audio import ToneTrack  # noqa: E402
from wcsemu.media_webrtc import with_telephone_event  # noqa: E402
from aiortc.rtp import RtpPacket  # noqa: E402

aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]

CLIENT_TONE = 440.0
EMULATOR_TONE = 880.0


def without_candidates(sdp: str) -> str:
    """What WebSDK sends: the SDP without a=candidate / a=end-of-candidates lines."""
    return "".join(line + "\r\n" for line in sdp.splitlines()
                   if not line.startswith(("a=candidate", "a=end-of-candidates")))


def dominant_frequency(samples: numpy.ndarray, rate: int) -> float:
    spectrum = numpy.abs(numpy.fft.rfft(samples * numpy.hanning(len(samples))))
    return float(numpy.fft.rfftfreq(len(samples), 1 / rate)[int(numpy.argmax(spectrum))])


class ClientPeer:
    """The client's WebRTC side: plays a tone, collects what it receives (mono, 48 kHz)."""

    def __init__(self):
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.pc.addTrack(ToneTrack(CLIENT_TONE))
        self.received = []
        self._collectors = []

        @self.pc.on("track")
        def on_track(track):
            self._collectors.append(asyncio.ensure_future(self._collect(track)))

    async def _collect(self, track) -> None:
        try:
            while True:
                frame = await track.recv()
                pcm = frame.to_ndarray().reshape(-1, len(frame.layout.channels)).mean(axis=1)
                self.received.append(pcm)
        except MediaStreamError:
            pass

    async def send_rfc4733(self, keys: str, pt: int = 101) -> None:
        """Sends RFC 4733 events (three end packets each) on their own SSRC (reusing the audio SSRC
        with made-up sequence numbers would desynchronise the receiver's SRTP rollover counter)."""
        sender = self.pc.getTransceivers()[0].sender
        for number, key in enumerate(keys):
            event = "0123456789*#".index(key)
            for repeat in range(3):
                packet = RtpPacket(payload_type=pt, sequence_number=100 + number * 3 + repeat,
                                   timestamp=1000000 + number * 8000, ssrc=0x4733,
                                   payload=bytes([event, 0x80 | 10, 0x03, 0x20]))
                await sender.transport._send_rtp(packet.serialize())

    def received_seconds(self) -> float:
        return sum(len(chunk) for chunk in self.received) / 48000

    async def answer(self, offer: str) -> str:
        await self.pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        await self.pc.setLocalDescription(await self.pc.createAnswer())
        return without_candidates(self.pc.localDescription.sdp)

    async def offer(self) -> str:
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return without_candidates(self.pc.localDescription.sdp)

    async def accept(self, answer: str) -> None:
        await self.pc.setRemoteDescription(RTCSessionDescription(answer, "answer"))

    async def close(self) -> None:
        await self.pc.close()
        for collector in self._collectors:
            collector.cancel()
        await asyncio.gather(*self._collectors, return_exceptions=True)


class MediaChecks:
    def __init__(self, emulator: Emulator):
        self.emu = emulator

    async def _login(self, login: str):
        client = await connect(self.emu.url)
        await client.login(login, "pw")
        await client.expect("registered")
        return client

    async def _media(self, call_id: str) -> dict:
        return (await self.emu.aget(f"/calls?callId={call_id}"))[0]["media"]

    async def incoming_call_tone_both_ways(self):
        client = await self._login("1001")
        ring = await self.emu.apost("/ring", {"login": "1001", "caller": "2000",
                                              "source": f"tone:{EMULATOR_TONE:g}"})
        call_id, offer = (await client.expect("setRemoteSDP"))
        assert call_id == ring["callId"] and "127.0.0.1" in offer and "a=candidate:" in offer, offer
        assert re.search(r"a=rtpmap:111 opus/48000/2", offer), offer
        assert "a=fmtp:111 minptime=10;useinbandfec=1" in offer, offer
        assert "a=rtpmap:101 telephone-event/8000" in offer, offer
        await client.expect("ring")
        peer = ClientPeer()
        answer = with_telephone_event(await peer.answer(offer), "101")  # as a browser would answer
        assert "a=candidate" not in answer
        await client.send("answer", {"callId": call_id, "incoming": True, "sdp": answer})
        await client.expect("talk")
        await asyncio.sleep(0.5)
        await peer.send_rfc4733("5#")
        for _ in range(100):  # up to 10 s for 2 s of audio each way
            await asyncio.sleep(0.1)
            media = await self._media(call_id)
            if peer.received_seconds() >= 2.0 and media["recorded_seconds"] >= 2.0:
                break
        assert media["ice_state"] == "completed" and media["dtls_state"] == "connected", media
        assert media["codec"] == "opus/48000/2", media
        assert media["packets_sent"] > 50 and media["packets_received"] > 50, media
        assert media["bytes_sent"] > 0 and media["bytes_received"] > 0, media
        call = (await self.emu.aget(f"/calls?callId={call_id}"))[0]
        assert call["dtmf"] == "5#" and {e["type"] for e in call["dtmf_events"]} == {"RTP"}, call
        heard = numpy.concatenate(peer.received)[-96000:]
        assert abs(dominant_frequency(heard, 48000) - EMULATOR_TONE) < 10, dominant_frequency(heard, 48000)
        await client.send("hangup", {"callId": call_id})
        await client.expect("finish")
        await peer.close()
        path = media["recording"]
        assert path and os.path.basename(path) == f"{call_id}.wav", media
        with wave.open(path) as wav:
            rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
        recorded = numpy.frombuffer(frames, dtype=numpy.int16).astype(float)
        assert len(recorded) / rate >= 2.0, len(recorded) / rate
        tail = recorded[-rate * 2:]
        assert abs(dominant_frequency(tail, rate) - CLIENT_TONE) < 10, dominant_frequency(tail, rate)
        assert numpy.sqrt(numpy.mean(tail ** 2)) > 1000, "recording is silent"
        await client.close()

    async def outgoing_call_without_client_candidates(self):
        client = await self._login("1002")
        peer = ClientPeer()
        offer = await peer.offer()
        assert "a=candidate" not in offer
        await client.send("call", {"callId": "out-1", "callee": "3000", "sdp": offer, "hasAudio": True})
        call_id, answer = await client.expect("setRemoteSDP")
        assert call_id == "out-1" and "a=candidate:" in answer, answer
        await peer.accept(answer)
        await client.expect("talk")
        for _ in range(100):
            await asyncio.sleep(0.1)
            media = await self._media("out-1")
            if peer.received_seconds() >= 1.0 and media["recorded_seconds"] >= 1.0:
                break
        assert media["ice_state"] == "completed" and media["dtls_state"] == "connected", media
        assert peer.received_seconds() >= 1.0 and media["recorded_seconds"] >= 1.0, media
        await client.send("hangup", {"callId": "out-1"})
        await client.expect("finish")
        await peer.close()
        await client.close()

    async def file_source_is_played(self):
        client = await self._login("1005")
        with tempfile.TemporaryDirectory(prefix="wcs-media-source-") as scratch:
            path = os.path.join(scratch, "tone660.wav")
            t = numpy.arange(16000) / 16000
            with wave.open(path, "wb") as wav:  # 1 s of 660 Hz, 16 kHz mono: resampled and looped
                wav.setnchannels(1)
                wav.setsampwidth(2)
                wav.setframerate(16000)
                wav.writeframes((8000 * numpy.sin(2 * numpy.pi * 660 * t)).astype(numpy.int16).tobytes())
            missing = await self.emu.apost("/ring", {"login": "1005", "source": "file:/nonexistent.wav"})
            assert missing["state"] == "failed" and missing["reason"] == "media_failed", missing
            ring = await self.emu.apost("/ring", {"login": "1005", "source": f"file:{path}"})
            _, offer = await client.expect("setRemoteSDP")
            peer = ClientPeer()
            await client.send("answer", {"callId": ring["callId"], "sdp": await peer.answer(offer)})
            await client.expect("talk")
            for _ in range(100):
                await asyncio.sleep(0.1)
                if peer.received_seconds() >= 1.5:
                    break
            heard = numpy.concatenate(peer.received)[-48000:]
            assert abs(dominant_frequency(heard, 48000) - 660) < 10, dominant_frequency(heard, 48000)
            await client.send("hangup", {"callId": ring["callId"]})
            await client.expect("finish")
            await peer.close()
        await client.close()

    async def ice_failure_fails_the_call(self):
        await self.emu.apost("/config", {"ice_timeout": 1.5})
        try:
            client = await self._login("1003")
            ring = await self.emu.apost("/ring", {"login": "1003"})
            _, offer = await client.expect("setRemoteSDP")
            peer = ClientPeer()
            answer = await peer.answer(offer)
            await peer.close()  # the client never performs ICE
            await client.send("answer", {"callId": ring["callId"], "sdp": answer})
            await client.expect("talk")
            finish = (await client.expect("finish", 10))[0]
            assert finish["status"] == "FAILED" and finish["info"] == "Failed by ICE error", finish
            await client.close()
        finally:
            await self.emu.apost("/config", {"ice_timeout": 15})

    async def dtls_fingerprint_mismatch_fails_the_call(self):
        client = await self._login("1004")
        ring = await self.emu.apost("/ring", {"login": "1004"})
        _, offer = await client.expect("setRemoteSDP")
        peer = ClientPeer()
        answer = await peer.answer(offer)
        forged = re.sub(r"a=fingerprint:sha-256 \S+", "a=fingerprint:sha-256 " + ":".join(["AB"] * 32),
                        answer)
        await client.send("answer", {"callId": ring["callId"], "sdp": forged})
        finish = (await client.expect("finish", 10))[0]
        assert finish["status"] == "FAILED" and finish["info"] == "Failed by DTLS fingerprint error", finish
        await peer.close()
        await client.close()

    # -- server variant --ice-lite (README "Server variants") -----------------------------------

    async def _lite_call(self, login: str, strip_lite: bool):
        """An incoming call on a lite emulator leg; the client peer counts the checks it receives.
        With strip_lite the client does not learn that the emulator is lite (it answers controlled)."""
        client = await self._login(login)
        await self.emu.apost("/ring", {"login": login})
        call_id, offer = await client.expect("setRemoteSDP")
        assert "\r\na=ice-lite\r\n" in offer, offer
        peer = ClientPeer()
        if strip_lite:
            offer = offer.replace("a=ice-lite\r\n", "")
        try:
            await self._lite_answer(client, peer, call_id, offer)
        finally:
            await peer.close()
            await client.close()

    async def _lite_answer(self, client, peer, call_id: str, offer: str) -> None:
        answer = await peer.answer(offer)
        ice = peer.pc.getTransceivers()[0].sender.transport.transport
        checks_received = []
        original = ice._connection.request_received
        ice._connection.request_received = lambda message, addr, protocol, raw: (
            checks_received.append(addr), original(message, addr, protocol, raw))
        await client.send("answer", {"callId": call_id, "sdp": answer})
        await client.expect("talk")
        for _ in range(100):
            await asyncio.sleep(0.1)
            media = await self._media(call_id)
            if peer.received_seconds() >= 1.0 and media["recorded_seconds"] >= 1.0:
                break
        assert media["ice_state"] == "completed" and media["dtls_state"] == "connected", media
        assert peer.received_seconds() >= 1.0 and media["recorded_seconds"] >= 1.0, media
        assert checks_received == [], f"the lite leg sent {len(checks_received)} checks"
        assert ice.role == "controlling", ice.role
        await client.send("hangup", {"callId": call_id})
        await client.expect("finish")

    async def ice_lite_incoming_call(self):
        await self.emu.apost("/config", {"ice_lite": True})
        try:
            await self._lite_call("1006", strip_lite=False)
            # a client that ignores a=ice-lite starts controlled: every check gets 487 until it
            # switches to controlling (RFC 8445 7.3.1.1)
            await self._lite_call("1007", strip_lite=True)
        finally:
            await self.emu.apost("/config", {"ice_lite": False})

    async def ice_lite_outgoing_call(self):
        await self.emu.apost("/config", {"ice_lite": True})
        try:
            client = await self._login("1008")
            peer = ClientPeer()
            await client.send("call", {"callId": "out-lite", "callee": "3000", "sdp": await peer.offer()})
            _, answer = await client.expect("setRemoteSDP")
            assert "\r\na=ice-lite\r\n" in answer, answer
            await peer.accept(answer)
            await client.expect("talk")
            for _ in range(100):
                await asyncio.sleep(0.1)
                media = await self._media("out-lite")
                if peer.received_seconds() >= 1.0 and media["recorded_seconds"] >= 1.0:
                    break
            assert media["ice_state"] == "completed" and peer.received_seconds() >= 1.0, media
            await client.send("hangup", {"callId": "out-lite"})
            await client.expect("finish")
            await peer.close()
            await client.close()
        finally:
            await self.emu.apost("/config", {"ice_lite": False})


def quiet_closed_transport_noise(loop, context) -> None:
    """A peer closed before its ICE started makes aiortc log an unretrieved task error: expected here."""
    if "RTCIceTransport is closed" in str(context.get("exception")):
        return
    loop.default_exception_handler(context)


async def main() -> int:
    asyncio.get_running_loop().set_exception_handler(quiet_closed_transport_noise)
    record_dir = tempfile.mkdtemp(prefix="wcs-media-selftest-")
    emulator = Emulator("--media", "aiortc", "--record-dir", record_dir,
                        *[f"--user=100{n}:pw" for n in range(1, 9)])
    runner = Runner()
    checks = MediaChecks(emulator)
    try:
        for name in ("incoming_call_tone_both_ways", "outgoing_call_without_client_candidates",
                     "file_source_is_played", "ice_failure_fails_the_call", "dtls_fingerprint_mismatch_fails_the_call",
                     "ice_lite_incoming_call", "ice_lite_outgoing_call"):
            await runner.run(name, getattr(checks, name), timeout=60)
    finally:
        emulator.stop()
        for name in os.listdir(record_dir):
            os.unlink(os.path.join(record_dir, name))
        os.rmdir(record_dir)
    return runner.summary(emulator)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
