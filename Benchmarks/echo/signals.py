"""The echo harness's signals (Benchmarks/echo/harness.py): 48 kHz mono float arrays in int16 units.

- far end: espeak-ng speech (one voice) with pauses and a quiet passage;
- near end: a second espeak-ng voice;
- the echo: the far end through a synthesised room impulse response (exponentially decaying
  noise, RT60 about 0.3 s, after a direct path), delayed, scaled to 0 dB echo return loss (the
  echo at the microphone as loud as the far end played: speaker and microphone in one box),
  resampled by a clock drift (ppm) between playback and capture, optionally with a second room
  (the path change) from a given second on; plus white noise 30 dB under the echo.

Only numpy (Debian's python3-numpy) and espeak-ng; deterministic for a seed.
"""
import os
import subprocess
import tempfile
import wave

import numpy

RATE = 48000

FAR_TEXT = [
    "Hello, this is the front door. Somebody is waiting outside with a parcel for you.",
    "Could you please come down and sign for it, or tell me where to leave it?",
    "The weather is cold today, so I would rather not leave it on the steps.",
    "I will wait here for another minute or two.",
    "Thank you, have a nice evening and see you next week.",
]
NEAR_TEXT = [
    "Yes, I am coming down right now, just give me a moment please.",
    "Please leave it next to the blue bench by the garage door.",
    "My neighbour will pick it up later this afternoon.",
]


def _espeak(text, voice, speed):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "speech.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", path, text], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with wave.open(path) as w:
            rate = w.getframerate()
            data = numpy.frombuffer(w.readframes(w.getnframes()), dtype=numpy.int16).astype(numpy.float64)
    return resample(data, rate, RATE)


def resample(samples, rate, target):
    """Band-limited resampling by FFT (whole signal): fine for the harness's few seconds."""
    if rate == target:
        return samples
    count = int(round(len(samples) * target / rate))
    spectrum = numpy.fft.rfft(samples)
    out_bins = count // 2 + 1
    if out_bins <= len(spectrum):
        spectrum = spectrum[:out_bins]
    else:
        spectrum = numpy.concatenate([spectrum, numpy.zeros(out_bins - len(spectrum))])
    return numpy.fft.irfft(spectrum, count) * (count / len(samples))


def _normalise(samples, dbfs):
    """Scales so that the active speech (samples above 1 % of the peak) sits at `dbfs` RMS."""
    active = samples[numpy.abs(samples) > 0.01 * numpy.max(numpy.abs(samples))]
    rms = numpy.sqrt(numpy.mean(active ** 2)) if len(active) else 1.0
    return samples * (32768 * 10 ** (dbfs / 20) / rms)


def speech(texts, voice, speed, seconds, pauses, quiet_index=None, start=0.0):
    """`texts` spoken one after another with the given pauses (s) between, from `start` (s),
    within `seconds`; sentence `quiet_index` 15 dB quieter (a quiet passage)."""
    out = numpy.zeros(int(seconds * RATE))
    at = int(start * RATE)
    for index, text in enumerate(texts):
        if at >= len(out):
            break
        sentence = _normalise(_espeak(text, voice, speed), -20)
        if index == quiet_index:
            sentence *= 10 ** (-15 / 20)
        end = min(len(out), at + len(sentence))
        out[at:end] += sentence[:end - at]
        at = end + int(pauses[index % len(pauses)] * RATE)
    return out


def room_impulse_response(rng, rt60=0.3, length=0.35, direct_gain=1.0):
    """A synthesised room: a direct path, early reflections, and a diffuse tail of noise decaying
    60 dB in `rt60` seconds, gently low-passed (walls absorb highs)."""
    count = int(length * RATE)
    t = numpy.arange(count) / RATE
    tail = rng.standard_normal(count) * numpy.exp(-6.9078 * t / rt60)
    tail[:int(0.003 * RATE)] = 0
    h = 0.35 * tail
    h[0] = direct_gain
    for _ in range(8):
        at = int(rng.uniform(0.002, 0.03) * RATE)
        h[at] += rng.uniform(-0.5, 0.5)
    smooth = numpy.array([0.25, 0.5, 0.25])
    return numpy.convolve(h, smooth)[:count]


def _convolve(signal, h):
    size = 1 << int(numpy.ceil(numpy.log2(len(signal) + len(h))))
    return numpy.fft.irfft(numpy.fft.rfft(signal, size) * numpy.fft.rfft(h, size), size)[:len(signal)]


def _drift(signal, ppm):
    """The signal as a capture clock `ppm` faster than playback sees it (linear interpolation)."""
    if ppm == 0:
        return signal
    positions = numpy.arange(len(signal)) * (1 + ppm * 1e-6)
    return numpy.interp(positions, numpy.arange(len(signal)), signal, right=0.0)


def echo_of(far, rng, delay_ms, drift_ppm=0.0, change_at=None, change_delay_ms=None):
    """The echo of `far` at the microphone at 0 dB ERL; a second room (and delay) from `change_at` s."""
    def path(h, delay):
        delayed = numpy.concatenate([numpy.zeros(int(delay * RATE / 1000)), far])[:len(far)]
        return _convolve(delayed, h)

    first = path(room_impulse_response(rng), delay_ms)
    if change_at is not None:
        second = path(room_impulse_response(rng), change_delay_ms if change_delay_ms is not None else delay_ms)
        cut = int(change_at * RATE)
        # A short crossfade (10 ms): someone moved, a door opened.
        fade = numpy.clip((numpy.arange(len(far)) - cut) / (0.01 * RATE), 0, 1)
        first = first * (1 - fade) + second * fade
    echo = _drift(first, drift_ppm)
    # 0 dB ERL: the echo's energy equals the far end's.
    far_energy, echo_energy = numpy.mean(far ** 2), numpy.mean(echo ** 2)
    return echo * numpy.sqrt(far_energy / max(echo_energy, 1e-9))


def noise_like(reference, rng, snr_db=30.0):
    """White noise `snr_db` under the active part of `reference`."""
    active = reference[numpy.abs(reference) > 0.01 * numpy.max(numpy.abs(reference))]
    level = numpy.sqrt(numpy.mean(active ** 2)) * 10 ** (-snr_db / 20)
    return rng.standard_normal(len(reference)) * level


def to_int16(samples):
    return numpy.clip(numpy.round(samples), -32768, 32767).astype(numpy.int16)
