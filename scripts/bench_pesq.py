#!/usr/bin/python3
"""PESQ-WB (ITU-T P.862.2, PyPI `pesq`) of speech from the caller, for `make bench`.

- `ensure_venv(path)`: a venv with Debian's site packages (numpy, PyAV) plus `pesq` from PyPI,
  installed on first use by the bench itself (CI never runs the bench).
- `make_speech(work)`: about 12 s of espeak-ng speech with pauses, as a 16 kHz mono WAV (the reference).
- `python bench_pesq.py REF.wav DEGRADED.wav` (run with the venv's python): resamples the degraded
  recording (the agent's, 48 kHz; the caller loops the speech, and the recording holds at least
  one whole repetition) to 16 kHz, finds a whole repetition by cross-correlation, cuts it out
  and prints {"pesq_wb", "delay_ms"}.
"""
import json
import os
import subprocess
import sys
import wave

SPEECH = ("The quick brown fox jumps over the lazy dog. "
          "Please leave the parcel at the front door, next to the blue bench. "
          "I will be back at seven tonight.")
RATE = 16000


def ensure_venv(path):
    """The venv's python, creating the venv and installing `pesq` when needed."""
    python = os.path.join(path, "bin", "python")
    probe = [python, "-c", "import pesq, numpy, av"]
    if os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", path], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "pesq"], check=True)
    subprocess.run(probe, check=True)
    return python


def _read_mono(path):
    import numpy
    with wave.open(path) as w:
        rate, channels, data = w.getframerate(), w.getnchannels(), w.readframes(w.getnframes())
    samples = numpy.frombuffer(data, dtype=numpy.int16).astype(numpy.float32)
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples, rate


def _resample(samples, rate, target):
    """Band-limited resampling with PyAV (libswresample)."""
    import av
    import numpy
    if rate == target:
        return samples
    resampler = av.AudioResampler(format="s16", layout="mono", rate=target)
    frame = av.AudioFrame.from_ndarray(numpy.clip(samples, -32768, 32767).astype(numpy.int16).reshape(1, -1),
                                       format="s16", layout="mono")
    frame.sample_rate = rate
    out = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    out += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return numpy.concatenate(out).astype(numpy.float32)


def _write(path, samples, rate):
    import numpy
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(numpy.clip(samples, -32768, 32767).astype(numpy.int16).tobytes())


def make_speech(work, python):
    """Writes the 16 kHz reference; returns (path, seconds). Uses `python` (the venv) for PyAV."""
    raw = os.path.join(work, "speech-raw.wav")
    subprocess.run(["espeak-ng", "-s", "140", "-g", "8", "-w", raw, SPEECH], check=True)
    ref = os.path.join(work, "speech-16k.wav")
    subprocess.run([python, os.path.abspath(__file__), "--reference", raw, ref], check=True)
    with wave.open(ref) as w:
        return ref, w.getnframes() / w.getframerate()


def score(reference, degraded):
    """PESQ-WB of `degraded` against `reference` (run inside the venv)."""
    import numpy
    from pesq import pesq
    ref, _ = _read_mono(reference)
    deg, rate = _read_mono(degraded)
    deg = _resample(deg, rate, RATE)
    if len(deg) < len(ref):
        raise SystemExit(f"the recording ({len(deg) / RATE:.1f} s) is shorter than the speech")
    # the caller loops the speech: find one whole repetition (cross-correlation through the FFT)
    size = 1 << (len(deg) + len(ref)).bit_length()
    corr = numpy.fft.irfft(numpy.fft.rfft(deg, size) * numpy.conj(numpy.fft.rfft(ref, size)), size)
    delay = int(numpy.argmax(corr[:len(deg) - len(ref) + 1]))
    cut = deg[delay:delay + len(ref)]
    return {"pesq_wb": float(pesq(RATE, ref, cut, "wb")), "delay_ms": delay * 1000 / RATE}


if __name__ == "__main__":
    if sys.argv[1] == "--reference":
        samples, rate = _read_mono(sys.argv[2])
        _write(sys.argv[3], _resample(samples, rate, RATE), RATE)
    else:
        print(json.dumps(score(sys.argv[1], sys.argv[2])))
