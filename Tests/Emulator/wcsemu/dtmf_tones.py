"""In-audio DTMF from the emulator's caller: key tones mixed into (or replacing) the call's source.

Imported only with `--media aiortc`. Every outgoing audio track of the aiortc engine is wrapped in a
`DTMFMixTrack`; POST /dtmf-tones queues keys on a call. Frames of the source are converted to 48 kHz
mono s16 (PyAV's resampler) so a WAV file of speech can run under the tones.
"""
from __future__ import annotations

import fractions
import math
from typing import List, Optional, Tuple

import av
import numpy
from aiortc.mediastreams import MediaStreamTrack

SAMPLE_RATE = 48000
KEYS = "123A456B789C*0#D"
ROWS = (697.0, 770.0, 852.0, 941.0)
COLUMNS = (1209.0, 1336.0, 1477.0, 1633.0)


def key_frequencies(key: str) -> Tuple[float, float]:
    index = KEYS.index(key.upper())
    return ROWS[index // 4], COLUMNS[index % 4]


def amplitude(dbm0: float) -> float:
    """16-bit peak of a sine at dBm0 (0 dBm0 = 3.14 dB under full scale, G.711)."""
    return 32767 * 10 ** ((dbm0 - 3.14) / 20)


def key_samples(keys: str, tone_ms: float, gap_ms: float, level_dbm0: float, twist_db: float) -> numpy.ndarray:
    """The tones of `keys` as float samples at 48 kHz: each tone then its gap."""
    parts: List[numpy.ndarray] = []
    for key in keys:
        low, high = key_frequencies(key)
        t = numpy.arange(int(tone_ms * SAMPLE_RATE / 1000)) / SAMPLE_RATE
        tone = amplitude(level_dbm0) * numpy.sin(2 * math.pi * low * t) \
            + amplitude(level_dbm0 + twist_db) * numpy.sin(2 * math.pi * high * t)
        parts.append(tone)
        parts.append(numpy.zeros(int(gap_ms * SAMPLE_RATE / 1000)))
    return numpy.concatenate(parts) if parts else numpy.zeros(0)


def valid_keys(text: object) -> bool:
    return isinstance(text, str) and 0 < len(text) <= 256 and all(c.upper() in KEYS for c in text)


class DTMFMixTrack(MediaStreamTrack):
    """The call's source with queued key tones added (`mix`) or instead of it (`replace`).

    Also remembers when each key's tone started (wall clock), for latency figures (GET /calls).
    """

    kind = "audio"

    def __init__(self, source: MediaStreamTrack):
        super().__init__()
        self.source = source
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        self._pending = numpy.zeros(0, dtype=numpy.int16)  # resampled source samples not sent yet
        self._tones = numpy.zeros(0)
        self._replace = False
        self._marks: List[Tuple[int, str]] = []  # (offset in _tones, key) not started yet
        self._pts = 0
        self.sent_keys: List[dict] = []

    def queue(self, keys: str, tone_ms: float, gap_ms: float, level_dbm0: float, twist_db: float, replace: bool) -> float:
        """Queues keys after any still playing; returns the seconds they take."""
        samples = key_samples(keys, tone_ms, gap_ms, level_dbm0, twist_db)
        step = int(tone_ms * SAMPLE_RATE / 1000) + int(gap_ms * SAMPLE_RATE / 1000)
        base = len(self._tones)
        self._marks += [(base + i * step, key.upper()) for i, key in enumerate(keys)]
        self._tones = numpy.concatenate([self._tones, samples])
        self._replace = replace
        return len(samples) / SAMPLE_RATE

    async def _source_samples(self, count: int) -> numpy.ndarray:
        while len(self._pending) < count:
            frame = await self.source.recv()
            for out in self._resampler.resample(frame):
                self._pending = numpy.concatenate([self._pending, out.to_ndarray().reshape(-1).astype(numpy.int16)])
        samples, self._pending = self._pending[:count], self._pending[count:]
        return samples

    async def recv(self) -> av.AudioFrame:
        import time
        samples = (await self._source_samples(960)).astype(numpy.float64)
        if len(self._tones):
            take = min(960, len(self._tones))
            now = time.time()
            while self._marks and self._marks[0][0] < take:
                offset, key = self._marks.pop(0)
                self.sent_keys.append({"key": key, "time": now + offset / SAMPLE_RATE})
            self._marks = [(offset - take, key) for offset, key in self._marks]
            if self._replace:
                samples[:take] = 0
            samples[:take] += self._tones[:take]
            self._tones = self._tones[take:]
        out = numpy.clip(samples, -32767, 32767).astype(numpy.int16)
        frame = av.AudioFrame.from_ndarray(out.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        self._pts += 960
        return frame

    def stop(self) -> None:
        self.source.stop()
        super().stop()
