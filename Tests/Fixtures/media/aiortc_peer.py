#!/usr/bin/python3
"""A real aiortc 1.4 peer for the CallMedia interop tests, on 127.0.0.1 only.

Usage: aiortc_peer.py offer|answer <recording.wav> [--seconds S] [--frequency HZ] [--timeout T]

  offer   create an offer with a tone track (after ICE gathering), print it, read the answer
  answer  read an offer, answer it with a tone track, print the answer
Then, once the connection is up, play the tone for S seconds (default 3) while recording what
arrives to <recording.wav> (16-bit mono at the received sample rate), print statistics and exit.

stdout, one JSON object per line:
  {"event": "offer"|"answer", "sdp": "..."}
  {"event": "connected"}
  {"event": "stats", "framesReceived": N, "secondsReceived": S, "sampleRate": R,
   "inbound": {...}, "outbound": {...}, "remoteInbound": {...}, "pair": {...}}
  {"event": "failed", "error": "..."}                  (exit 1)
stdin: one JSON line {"sdp": "..."} with the remote description.
No STUN/TURN server is used; aioice is limited to 127.0.0.1.
"""
import argparse
import asyncio
import fractions
import json
import signal
import sys
import time
import wave

import aioice.ice
import numpy
from av import AudioFrame

# aioice drops loopback addresses from its host candidates; the tests run on 127.0.0.1 only.
aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]

from aiortc import (  # noqa: E402
    MediaStreamTrack,
    RTCConfiguration,
    RTCPeerConnection,
    RTCSessionDescription,
)
from aiortc.mediastreams import MediaStreamError  # noqa: E402

SAMPLE_RATE = 48000
FRAME_SAMPLES = 960


def emit(obj):
    print(json.dumps(obj), flush=True)


class ToneTrack(MediaStreamTrack):
    """A real-time sine tone: 20 ms frames of 48 kHz mono s16, paced by the wall clock."""

    kind = "audio"

    def __init__(self, frequency):
        super().__init__()
        self.frequency = frequency
        self.start = None
        self.timestamp = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.time()
        else:
            self.timestamp += FRAME_SAMPLES
            wait = self.start + self.timestamp / SAMPLE_RATE - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        t = (numpy.arange(FRAME_SAMPLES) + self.timestamp) / SAMPLE_RATE
        samples = (0.5 * 32767 * numpy.sin(2 * numpy.pi * self.frequency * t)).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.pts = self.timestamp
        frame.sample_rate = SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


class Recorder:
    """Collects the received track as mono 16-bit samples."""

    def __init__(self):
        self.chunks = []
        self.rate = SAMPLE_RATE
        self.frames = 0
        self.task = None

    def start(self, track):
        self.task = asyncio.ensure_future(self.run(track))

    async def run(self, track):
        try:
            while True:
                frame = await track.recv()
                channels = len(frame.layout.channels)
                data = frame.to_ndarray().reshape(-1, channels).astype(numpy.int32).mean(axis=1)
                self.chunks.append(data.astype(numpy.int16))
                self.rate = frame.sample_rate
                self.frames += 1
        except (MediaStreamError, asyncio.CancelledError):
            pass

    async def stop(self, path):
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
        samples = numpy.concatenate(self.chunks) if self.chunks else numpy.zeros(0, dtype=numpy.int16)
        with wave.open(path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(self.rate)
            out.writeframes(samples.astype("<i2").tobytes())
        return len(samples) / self.rate


def stats_of(report):
    wanted = {
        "inbound-rtp": ("inbound", ["packetsReceived", "packetsLost", "jitter"]),
        "outbound-rtp": ("outbound", ["packetsSent", "bytesSent"]),
        "remote-inbound-rtp": ("remoteInbound", ["packetsLost", "fractionLost", "roundTripTime"]),
    }
    result = {}
    for stat in report.values():
        if stat.type in wanted:
            name, fields = wanted[stat.type]
            result[name] = {field: getattr(stat, field, None) for field in fields}
    return result


def nominated_pair(pc):
    try:
        connection = pc.getTransceivers()[0].sender.transport.transport._connection
        pair = connection._nominated[1]  # private, but the only way to see the nominated pair
        return {
            "local": {"type": pair.local_candidate.type, "port": pair.local_candidate.port},
            "remote": {"type": pair.remote_candidate.type, "port": pair.remote_candidate.port},
        }
    except Exception:  # diagnostics only
        return None


async def read_remote():
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line:
        raise RuntimeError("stdin closed before the remote description arrived")
    return json.loads(line)["sdp"]


async def run(args):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    recorder = Recorder()
    connected = asyncio.Event()
    failed = asyncio.Event()

    @pc.on("track")
    def on_track(track):
        if track.kind == "audio":
            recorder.start(track)

    @pc.on("connectionstatechange")
    def on_state():
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState == "failed":
            failed.set()

    tone = ToneTrack(args.frequency)
    try:
        if args.mode == "offer":
            pc.addTrack(tone)
            await pc.setLocalDescription(await pc.createOffer())
            emit({"event": "offer", "sdp": pc.localDescription.sdp})
            await pc.setRemoteDescription(RTCSessionDescription(sdp=await read_remote(), type="answer"))
        else:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=await read_remote(), type="offer"))
            pc.addTrack(tone)
            await pc.setLocalDescription(await pc.createAnswer())
            emit({"event": "answer", "sdp": pc.localDescription.sdp})

        waiter = asyncio.ensure_future(connected.wait())
        failer = asyncio.ensure_future(failed.wait())
        await asyncio.wait([waiter, failer], timeout=args.timeout, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        failer.cancel()
        if not connected.is_set():
            emit({"event": "failed", "error": f"connection state {pc.connectionState}"})
            return 1
        emit({"event": "connected"})
        await asyncio.sleep(args.seconds)
        seconds = await recorder.stop(args.recording)
        stats = stats_of(await pc.getStats())
        emit({"event": "stats", "framesReceived": recorder.frames, "secondsReceived": seconds,
              "sampleRate": recorder.rate, "pair": nominated_pair(pc), **stats})
        return 0
    except Exception as error:  # report anything as a failure line
        emit({"event": "failed", "error": f"{type(error).__name__}: {error}"})
        return 1
    finally:
        tone.stop()
        await pc.close()


def main():
    # Test runners start children with most signals blocked (c-interop-notes pitfall 14).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["offer", "answer"])
    parser.add_argument("recording")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--frequency", type=float, default=440.0)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
