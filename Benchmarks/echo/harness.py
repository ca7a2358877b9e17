#!/usr/bin/python3
"""The echo harness (issue 21): each voice-processing engine on the same synthetic room, side by side.

Far end = espeak-ng speech with pauses and a quiet passage; near end = a second voice; echo = the far
end through a synthesised room (RT60 ~0.3 s) delayed 40/120/250 ms at 0 dB ERL, noise 30 dB under
it, clock drift +-100 ppm; the echo path changes mid-run. 48 kHz mono, 20 ms frames, through the
product's own stage (wcs-voice-bench, VoiceProcessingStage) with its defaults (echo cancellation,
noise suppression, high-pass), the devices reporting no delay: the engine finds the whole echo
path itself. AEC3 (PyPI `aec-audio-processing`) runs as the reference where it is installed.

Figures (see Benchmarks/README.md, "Echo cancellation"):
- ERLE settled: median over active 250 ms windows of the last 10 s of 20 s (far end alone);
- ERLE 2 s: median over active windows of the second second (1-2 s);
- reconvergence: seconds after the path change (at 10 s) until two active windows in a row >= 15 dB;
- double talk: PESQ-WB of the output against the clean near end while both talk (8-18 s), and of
  the near end alone (no far end) through the stage; `off` is the microphone as it comes;
- never worse than off: 1 s windows (0.5 s hop) where the output holds more energy than the
  microphone + 1 dB (count, over every run) and the worst excess;
- CPU: thread CPU per 20 ms frame, % of one core, beside Opus encode + decode of the same frames.

  harness.py --runner PATH/wcs-voice-bench [--short] [--engines webrtc,speex] [--json OUT]
An engine name ending in @reported gets the path's bulk delay reported, as ALSA reports it in a call
(the product's case): it then only has to cover the room and the drift.
--short (make test): the 120 ms path only, single talk and path change, no PESQ; exits 1 when the
first engine's settled ERLE is under 20 dB or the output is ever louder than the microphone + 1 dB.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import signals  # noqa: E402

RATE = signals.RATE
WINDOW = RATE // 4


def _active_windows(echo, start, end):
    """Indices of 250 ms windows in [start, end) s where the echo is within 30 dB of its loudest window."""
    windows = len(echo) // WINDOW
    energy = numpy.array([numpy.mean(echo[i * WINDOW:(i + 1) * WINDOW] ** 2) for i in range(windows)])
    peak = numpy.max(energy) if len(energy) else 0
    return [i for i in range(int(start * 4), min(windows, int(end * 4))) if energy[i] > peak * 1e-3], energy


def _erle_windows(mic, out, indices):
    values = []
    for i in indices:
        m = numpy.mean(mic[i * WINDOW:(i + 1) * WINDOW] ** 2)
        o = numpy.mean(out[i * WINDOW:(i + 1) * WINDOW] ** 2)
        values.append(10 * numpy.log10(m / max(o, 1e-3)))
    return values


def erle_median(mic, out, echo, start, end):
    indices, _ = _active_windows(echo, start, end)
    values = _erle_windows(mic, out, indices)
    return float(numpy.median(values)) if values else None


def reconvergence(mic, out, echo, change_at, goal=15.0):
    indices, _ = _active_windows(echo, change_at, len(echo) / RATE)
    values = _erle_windows(mic, out, indices)
    for k in range(len(values) - 1):
        if values[k] >= goal and values[k + 1] >= goal:
            return indices[k] / 4 - change_at
    return None


def louder_than_mic(mic, out):
    """(windows where out > mic + 1 dB, worst excess dB) over 1 s windows with a 0.5 s hop."""
    count, worst = 0, -99.0
    for start in range(0, len(mic) - RATE + 1, RATE // 2):
        m = numpy.mean(mic[start:start + RATE] ** 2) + 1e-3
        o = numpy.mean(out[start:start + RATE] ** 2) + 1e-3
        excess = 10 * numpy.log10(o / m)
        worst = max(worst, excess)
        if excess > 1.0:
            count += 1
    return count, worst


class Runner:
    def __init__(self, path, work):
        self.path, self.work = path, work

    def run(self, engine, mic, far, extra=(), delay_ms=0):
        """`engine` may end in `@reported`: the devices then report the path's bulk delay
        (`delay_ms`), as ALSA's do in a call, and the engine only covers the room."""
        if engine.endswith("@reported"):
            engine, extra = engine[:-len("@reported")], [*extra, "--delay-ms", str(delay_ms)]
        mic_path, far_path, out_path = (os.path.join(self.work, n) for n in ("mic.raw", "far.raw", "out.raw"))
        signals.to_int16(mic).tofile(mic_path)
        signals.to_int16(far).tofile(far_path)
        if engine == "aec3":
            figures = aec3_run(mic_path, far_path, out_path)
        else:
            done = subprocess.run([self.path, "--engine", engine, "--mic", mic_path, "--far", far_path, "--out", out_path,
                                   *extra], capture_output=True, text=True, check=True)
            figures = json.loads(done.stdout)
        out = numpy.fromfile(out_path, dtype=numpy.int16).astype(numpy.float64)
        return numpy.concatenate([out, numpy.zeros(max(0, len(mic) - len(out)))]), figures


def _has_pesq():
    try:
        import pesq  # noqa: F401
        return True
    except ImportError:
        return False


def aec3_available():
    try:
        import aec_audio_processing  # noqa: F401
        return True
    except ImportError:
        return False


def aec3_run(mic_path, far_path, out_path):
    """AEC3 (webrtc-audio-processing 2.x through PyPI's aec-audio-processing) with echo
    cancellation, noise suppression and high-pass, 10 ms frames at 48 kHz: the reference."""
    import time
    from aec_audio_processing import AudioProcessor
    mic = numpy.fromfile(mic_path, dtype=numpy.int16)
    far = numpy.fromfile(far_path, dtype=numpy.int16)
    processor = AudioProcessor(enable_aec=True, enable_ns=True, enable_agc=False)
    processor.set_stream_format(RATE, 1, RATE, 1)
    processor.set_reverse_stream_format(RATE, 1)
    block = RATE // 100
    out = numpy.zeros(len(mic), dtype=numpy.int16)
    start = time.thread_time()
    for at in range(0, len(mic) - block + 1, block):
        processor.process_reverse_stream(far[at:at + block].tobytes())
        processed = processor.process_stream(mic[at:at + block].tobytes())
        out[at:at + block] = numpy.frombuffer(processed, dtype=numpy.int16)
    micros = (time.thread_time() - start) * 1e6 / (len(mic) / (2 * block))
    out.tofile(out_path)
    return {"engine": "aec3", "cpu_us_per_frame": round(micros, 1), "cpu_percent_of_one_core": round(micros / 200, 3),
            "note": "includes Python's per-frame overhead"}


def pesq_wb(reference, degraded):
    from pesq import pesq
    ref = signals.resample(reference, RATE, 16000)
    deg = signals.resample(degraded, RATE, 16000)
    return float(pesq(16000, ref.astype(numpy.float32) / 32768, deg.astype(numpy.float32) / 32768, "wb"))


def scenario_single(rng_seed, far, delay_ms, drift_ppm, change_at=None):
    rng = numpy.random.default_rng(rng_seed)
    echo = signals.echo_of(far, rng, delay_ms, drift_ppm, change_at=change_at,
                           change_delay_ms=delay_ms + 10 if change_at else None)
    mic = echo + signals.noise_like(echo, rng)
    return mic, echo


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runner", required=True)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--engines", default="webrtc,speex,webrtc@reported,speex@reported")
    parser.add_argument("--json")
    parser.add_argument("--venv", help="a venv with PyPI's pesq (made on first use, as make bench's): the full run re-runs in it")
    args = parser.parse_args()
    if args.venv and not args.short and not _has_pesq():
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
        from bench_pesq import ensure_venv
        python = ensure_venv(args.venv)
        argv = [a for i, a in enumerate(sys.argv[1:]) if a != "--venv" and (i == 0 or sys.argv[i] != "--venv")]
        os.execv(python, [python, os.path.abspath(__file__), *argv])
    engines = args.engines.split(",")
    if not args.short and aec3_available() and "aec3" not in engines:
        engines.append("aec3")
    delays = [120] if args.short else [40, 120, 250]
    seconds = 12 if args.short else 20
    settled_from = seconds - (6 if args.short else 10)
    change_at = seconds / 2

    far = signals.speech(signals.FAR_TEXT, "en-us", 150, seconds, pauses=[0.6, 1.2, 0.4, 1.5], quiet_index=2, start=0.3)
    results = {engine: {"delays": {}} for engine in engines}
    worse = {engine: [0, -99.0] for engine in engines}
    cpu = {engine: [] for engine in engines}
    opus_floor = []
    with tempfile.TemporaryDirectory() as work:
        runner = Runner(args.runner, work)
        for delay in delays:
            for drift in ([100] if args.short else [100, -100]):
                mic, echo = scenario_single(delay, far, delay, drift)
                path_mic, path_echo = scenario_single(delay + 1, far, delay, drift, change_at=change_at)
                for engine in engines:
                    out, figures = runner.run(engine, mic, far, ["--opus-floor"] if engine != "aec3" else [], delay)
                    if "opus_floor_us_per_frame" in figures:
                        opus_floor.append(figures["opus_floor_us_per_frame"])
                    cpu[engine].append(figures["cpu_us_per_frame"])
                    path_out, _ = runner.run(engine, path_mic, far, delay_ms=delay)
                    row = {
                        "erle_settled_db": erle_median(mic, out, echo, settled_from, seconds),
                        "erle_2s_db": erle_median(mic, out, echo, 1, 2),
                        "reconverge_s": reconvergence(path_mic, path_out, path_echo, change_at),
                    }
                    results[engine]["delays"].setdefault(f"{delay}ms", {})[f"{drift:+d}ppm"] = row
                    for m, o in ((mic, out), (path_mic, path_out)):
                        count, worst = louder_than_mic(m, o)
                        worse[engine][0] += count
                        worse[engine][1] = max(worse[engine][1], worst)
        if not args.short:
            rng = numpy.random.default_rng(7)
            near = signals.speech(signals.NEAR_TEXT, "en+f3", 160, seconds, pauses=[0.5, 0.8], start=8.0)
            echo = signals.echo_of(far, rng, 120, 100)
            noise = signals.noise_like(echo, rng)
            double_mic = echo + near + noise
            alone_mic = near + noise
            silent = numpy.zeros(len(far))
            cut = slice(8 * RATE, 18 * RATE)
            try:
                results["off"] = {"pesq_double_talk": pesq_wb(near[cut], double_mic[cut]),
                                  "pesq_near_alone": pesq_wb(near[cut], alone_mic[cut])}
            except ImportError as error:
                results["off"] = {"pesq_error": str(error)}
            for engine in engines:
                out, _ = runner.run(engine, double_mic, far, delay_ms=120)
                alone, _ = runner.run(engine, alone_mic, silent)
                for m, o in ((double_mic, out), (alone_mic, alone)):
                    count, worst = louder_than_mic(m, o)
                    worse[engine][0] += count
                    worse[engine][1] = max(worse[engine][1], worst)
                try:
                    results[engine]["pesq_double_talk"] = pesq_wb(near[cut], out[cut])
                    results[engine]["pesq_near_alone"] = pesq_wb(near[cut], alone[cut])
                except ImportError as error:
                    results[engine]["pesq_error"] = str(error)
    for engine in engines:
        results[engine]["louder_than_mic_windows"] = worse[engine][0]
        results[engine]["louder_than_mic_worst_db"] = round(worse[engine][1], 2)
        results[engine]["cpu_us_per_frame"] = round(float(numpy.median(cpu[engine])), 1)
        results[engine]["cpu_percent_of_one_core"] = round(float(numpy.median(cpu[engine])) / 200, 3)
    if opus_floor:
        results["opus_floor_us_per_frame"] = round(float(numpy.median(opus_floor)), 1)
    print_table(results, engines)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    if args.short:
        first = results[engines[0]]
        settled = [row["erle_settled_db"] for d in first["delays"].values() for row in d.values()]
        failed = [s for s in settled if s is None or s < 20] or first["louder_than_mic_windows"] > 0
        if failed:
            print(f"FAIL: {engines[0]}: settled ERLE {settled}, louder-than-mic windows {first['louder_than_mic_windows']}")
            return 1
        print(f"ok: {engines[0]} settled ERLE {', '.join(f'{s:.1f}' for s in settled)} dB, never louder than the microphone + 1 dB")
    return 0


def _fmt(value, unit=""):
    return "-" if value is None else f"{value:.1f}{unit}"


def print_table(results, engines):
    print("engine            delay  drift    ERLE settled  ERLE 2 s  reconverge")
    for engine in engines:
        for delay, drifts in results[engine]["delays"].items():
            for drift, row in drifts.items():
                print(f"{engine:17} {delay:6} {drift:8} {_fmt(row['erle_settled_db'], ' dB'):>12}  "
                      f"{_fmt(row['erle_2s_db'], ' dB'):>8}  {_fmt(row['reconverge_s'], ' s'):>9}")
    print("engine            PESQ dt  PESQ alone  louder windows (worst)  CPU us/frame (% core)")
    for engine in engines + (["off"] if "off" in results else []):
        r = results[engine]
        cpu = f"{r['cpu_us_per_frame']} ({r['cpu_percent_of_one_core']} %)" if "cpu_us_per_frame" in r else "-"
        louder = f"{r['louder_than_mic_windows']} ({r['louder_than_mic_worst_db']} dB)" if "louder_than_mic_windows" in r else "-"
        print(f"{engine:17} {_fmt(r.get('pesq_double_talk')):>7}  {_fmt(r.get('pesq_near_alone')):>10}  {louder:>22}  {cpu}")
    if "opus_floor_us_per_frame" in results:
        print(f"Opus floor (encode + decode, same frames): {results['opus_floor_us_per_frame']} us/frame "
              f"({results['opus_floor_us_per_frame'] / 200:.3f} % of one core)")


if __name__ == "__main__":
    sys.exit(main())
