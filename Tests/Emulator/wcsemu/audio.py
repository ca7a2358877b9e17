"""Audio for the WebRTC leg: what the emulator plays (tone, WAV file, silence) and how it records.

Imported only with `--media aiortc` (it needs python3-aiortc, PyAV and numpy).
"""
from __future__ import annotations

import asyncio
import fractions
import logging
import math
import time
import wave
from typing import Optional

import av
import numpy
from aiortc.contrib.media import MediaPlayer
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from .sdp import MediaError

log = logging.getLogger("wcsemu.audio")

SAMPLE_RATE = 48000
FRAME_SAMPLES = 960  # 20 ms
TONE_AMPLITUDE = 0.3  # about -10 dBFS


class ToneTrack(MediaStreamTrack):
    """A real-time sine (or silence, at frequency 0): 20 ms frames of 48 kHz mono s16."""

    kind = "audio"

    def __init__(self, frequency: float):
        super().__init__()
        self.frequency = frequency
        self._start: Optional[float] = None
        self._pts = 0

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.time()
        else:
            self._pts += FRAME_SAMPLES
            delay = self._start + self._pts / SAMPLE_RATE - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
        if self.frequency > 0:
            t = (numpy.arange(FRAME_SAMPLES) + self._pts) / SAMPLE_RATE
            samples = (TONE_AMPLITUDE * 32767 * numpy.sin(2 * math.pi * self.frequency * t)).astype(numpy.int16)
        else:
            samples = numpy.zeros(FRAME_SAMPLES, dtype=numpy.int16)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


def open_source(source: str) -> MediaStreamTrack:
    """The track for a media source: `tone:<hz>`, `silence` or `file:<path>` (looped, any format PyAV reads).

    Raises MediaError("Failed by error") if the file cannot be opened.
    """
    if source == "silence":
        return ToneTrack(0)
    if source.startswith("tone:"):
        return ToneTrack(float(source[5:]))
    if source.startswith("file:"):
        try:
            player = MediaPlayer(source[5:], loop=True)
        except Exception as error:  # PyAV raises its own error types
            raise MediaError("Failed by error", f"cannot open media source {source}: {error}") from None
        if player.audio is None:
            raise MediaError("Failed by error", f"media source {source} has no audio")
        return player.audio
    raise MediaError("Failed by error", f"unknown media source {source}")


class WavRecorder:
    """Writes every frame of a remote audio track to a mono 16-bit WAV (the header stays valid while
    recording, so the file can be read before the call ends)."""

    def __init__(self, path: str):
        self.path = path
        self.frames = 0
        self.samples = 0
        self.rate = SAMPLE_RATE
        self._wav: Optional[wave.Wave_write] = None
        self._task: Optional[asyncio.Task] = None

    def start(self, track: MediaStreamTrack) -> None:
        """Starts consuming `track` in the background."""
        self._task = asyncio.create_task(self._consume(track))

    async def _consume(self, track: MediaStreamTrack) -> None:
        try:
            while True:
                frame = await track.recv()
                self._write(frame)
        except MediaStreamError:
            pass
        except Exception:
            log.exception("recording %s failed", self.path)

    def _write(self, frame: av.AudioFrame) -> None:
        channels = len(frame.layout.channels)
        pcm = frame.to_ndarray().reshape(-1, channels)
        mono = pcm.mean(axis=1).astype(numpy.int16) if channels > 1 else pcm.reshape(-1)
        if self._wav is None:
            self._wav = wave.open(self.path, "wb")
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(frame.sample_rate)
            self.rate = frame.sample_rate
        self._wav.writeframes(mono.tobytes())
        self.frames += 1
        self.samples += len(mono)

    @property
    def seconds(self) -> float:
        """Duration recorded so far."""
        return self.samples / self.rate

    async def stop(self) -> None:
        """Stops consuming and closes the file."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if self._wav is not None:
            self._wav.close()
