#!/usr/bin/python3
"""PESQ-WB under loss and jitter, replayed: deterministic, whatever the machine's load (`make bench`).

The live figure (bench_quality.py) depends on when aiortc sends, when the emulator's timers fire and
when the agent's clock ticks, all of which move with the machine's load; two runs of one binary
differ by up to a whole PESQ point. Here the same speech goes through the same steps with time as
numbers:

1. The caller's packets, as the emulator's aiortc caller makes them: the 16 kHz reference looped
   (MediaPlayer loop=True), resampled to 48 kHz stereo (libswresample, as MediaPlayer), Opus
   encoded by libopus (ctypes) stereo, OPUS_APPLICATION_VOIP, automatic bitrate; with `fec`, in-band
   FEC on and 5 % expected loss from the start (the emulator's `--opus-fec webrtc` once the agent
   has reported loss). One packet every 20 ms.
2. The emulator's impairment (Tests/Emulator/wcsemu/impair.py) with the same generator:
   `random.Random(f"{seed}:send")`, per datagram one draw for loss and one for the delay
   (uniform 0..jitter ms). RTCP datagrams, which take draws in a live call, are left out.
3. `wcs-quality-replay` (the agent's receive path: jitter buffer, playout, Opus decode, FEC,
   concealment) on a virtual 20 ms clock, for each receive reading (`tick`: the media clock's drain,
   the default path; `exact`: the loop path) and each clock phase against the sender.
   `ideal` is the ceiling for this loss: every packet that is not lost arrives on time (no jitter).
4. PESQ-WB of the output against the reference (bench_pesq.score, the cut the live bench uses).

Run with the bench venv's python: `.build/bench-venv/bin/python scripts/bench_replay.py TOOL [REF16K.wav]
[--phases 0,2,...,18] [--readings tick,exact,ideal] [--seed 1] [--sender-jitter-ms 8] [--jitter-args K=V,...]`. Prints one JSON
object: per mode ("fec", "nofec") and reading, the mean, lowest and highest PESQ-WB over the phases
and each run's counters. `replayed_figures` runs it for `make bench` (bench_quality.py).
"""
import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
import tempfile
import wave

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pesq import RATE, _read_mono, _resample, score  # noqa: E402

LOSS, JITTER_MS, SEED = 5.0, 30.0, 1
REPETITIONS = 2
PHASES = "0,2,4,6,8,10,12,14,16,18"  # where the agent's ticks fall between the caller's sends
SET_INBAND_FEC, SET_PACKET_LOSS_PERC = 4012, 4014
VOIP = 2048
FIRST_SEQUENCE, FIRST_TIMESTAMP = 65_000, 4_294_000_000  # both wrap during the replay
TRANSIT = 0.001  # loopback: the fixed part of each packet's trip, seconds


def caller_packets(ref16, fec, loss=LOSS):
    """The caller's Opus payloads for REPETITIONS loops of the reference, one per 20 ms."""
    opus = ctypes.CDLL("libopus.so.0")
    opus.opus_encoder_create.restype = ctypes.c_void_p
    pcm16 = numpy.tile(ref16, REPETITIONS)
    mono = _resample(pcm16, RATE, 48000)
    stereo = numpy.ascontiguousarray(numpy.repeat(numpy.clip(mono, -32768, 32767).astype(numpy.int16), 2))
    error = ctypes.c_int()
    encoder = ctypes.c_void_p(opus.opus_encoder_create(48000, 2, VOIP, ctypes.byref(error)))
    if error.value != 0:
        raise SystemExit(f"opus_encoder_create failed: {error.value}")
    if fec:
        for request, value in ((SET_INBAND_FEC, 1), (SET_PACKET_LOSS_PERC, max(1, int(loss)))):
            if opus.opus_encoder_ctl(encoder, ctypes.c_int(request), ctypes.c_int(value)) != 0:
                raise SystemExit(f"opus_encoder_ctl({request}) failed")
    out = ctypes.create_string_buffer(4000)
    packets = []
    for index in range(len(stereo) // 1920):
        frame = stereo[index * 1920:(index + 1) * 1920]
        length = opus.opus_encode(encoder, frame.ctypes.data_as(ctypes.c_void_p), 960, out, 4000)
        if length <= 0:
            raise SystemExit(f"opus_encode failed: {length}")
        packets.append(bytes(out.raw[:length]))
    opus.opus_encoder_destroy(encoder)
    return packets


def sender_offsets(count, seed, sender_jitter_ms, stall_percent=2.0):
    """When each packet leaves the caller, relative to its 20 ms slot (seconds): a sender thread on a
    busy machine wakes late by a small random amount (uniform 0..sender_jitter_ms) and now and then
    (stall_percent of the wake-ups) stalls for 20-60 ms, after which the frames it owes go out back to back.
    Seeded by its own generator (`{seed}:sender`), so the impairment's draws are the same with or
    without it. All zeros for sender_jitter_ms 0 (a perfect sender clock)."""
    if sender_jitter_ms <= 0:
        return [0.0] * count
    rng = random.Random(f"{seed}:sender")
    offsets, busy_until = [], 0.0
    for index in range(count):
        slot = index * 0.020
        wake = slot + rng.random() * sender_jitter_ms / 1000
        if rng.random() * 100 < stall_percent:
            wake += 0.020 + rng.random() * 0.040
        send = max(wake, busy_until)
        busy_until = send + 0.0002  # one packet's encode and send
        offsets.append(send - slot)
    return offsets


def impaired_trace(packets, seed, jitter_ms, loss=LOSS, sender_jitter_ms=0.0, stall_percent=2.0):
    """(sequence, timestamp, arrival seconds, payload) of each packet the impairment lets through."""
    rng = random.Random(f"{seed}:send")
    offsets = sender_offsets(len(packets), seed, sender_jitter_ms, stall_percent)
    trace = []
    for index, payload in enumerate(packets):
        drop = rng.random() * 100 < loss
        spread = rng.random() * jitter_ms
        if drop:
            continue
        trace.append(((FIRST_SEQUENCE + index) & 0xFFFF, (FIRST_TIMESTAMP + 960 * index) & 0xFFFFFFFF,
                      index * 0.020 + offsets[index] + TRANSIT + spread / 1000, payload))
    return trace


def write_trace(path, trace):
    with open(path, "w") as out:
        out.write("# seq timestamp arrival_seconds payload_hex\n")
        for sequence, timestamp, arrival, payload in trace:
            out.write(f"{sequence} {timestamp} {arrival:.9f} {payload.hex()}\n")


def replay(tool, trace_path, work, reading, phase_ms, jitter_args):
    """Runs the replay tool; returns (its counters, the output as a 48 kHz WAV path)."""
    raw = os.path.join(work, f"out-{reading}-{phase_ms}.raw")
    command = [tool, trace_path, raw, "--reading", reading, "--first-tick", f"{phase_ms / 1000:.6f}"]
    if jitter_args:
        command += ["--jitter", jitter_args]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tool} failed: {done.stderr.strip()}")
    wav = raw[:-4] + ".wav"
    with wave.open(wav, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(48000)
        with open(raw, "rb") as f:
            w.writeframes(f.read())
    return json.loads(done.stdout), wav


def measure(tool, reference, readings, phases, seed, jitter_args, work, loss=LOSS, jitter_ms=JITTER_MS,
            sender_jitter_ms=0.0, stall_percent=2.0):
    ref16, _ = _read_mono(reference)
    results = {}
    for mode, fec in (("nofec", False), ("fec", True)):
        packets = caller_packets(ref16, fec, loss)
        for reading in readings:
            ideal = reading == "ideal"
            trace = impaired_trace(packets, seed, 0 if ideal else jitter_ms, loss, 0 if ideal else sender_jitter_ms,
                                   stall_percent)
            trace_path = os.path.join(work, f"trace-{mode}-{reading}.txt")
            write_trace(trace_path, trace)
            runs = []
            for phase in phases:
                counters, wav = replay(tool, trace_path, work, "tick" if reading == "ideal" else reading, phase, jitter_args)
                counters.update(score(reference, wav), phase_ms=phase)
                runs.append(counters)
            scores = [run["pesq_wb"] for run in runs]
            results[f"{mode}_{reading}"] = {"pesq_wb": round(sum(scores) / len(scores), 3), "min": round(min(scores), 3),
                                            "max": round(max(scores), 3), "sent": len(packets),
                                            "stretched": sum(run.get("stretched", 0) for run in runs),
                                            "skipped": sum(run.get("skipped", 0) for run in runs),
                                            "lost_by_impairment": len(packets) - len(trace), "runs": runs}
    return results


def replayed_figures(tool, reference, venv_python, quick=False):
    """This script's figures for the default receive path (`tick`) and the ceiling (`ideal`), run
    with the venv's python; {"error": ...} when the tool is missing or the run fails."""
    if not os.path.exists(tool):
        return {"error": f"{tool} not built"}
    command = [venv_python, os.path.abspath(__file__), tool, reference, "--readings", "tick,ideal"]
    if quick:
        command += ["--phases", "0,10"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tool", help="the wcs-quality-replay binary")
    parser.add_argument("reference", nargs="?", help="16 kHz reference WAV (default: make the bench speech)")
    parser.add_argument("--phases", default=PHASES, help="clock phases against the sender, ms")
    parser.add_argument("--readings", default="tick,exact,ideal")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--loss", type=float, default=LOSS, help="loss in percent (the emulator's loss=)")
    parser.add_argument("--jitter-ms", type=float, default=JITTER_MS, help="the emulator's jitter= in ms")
    parser.add_argument("--sender-jitter-ms", type=float, default=0.0,
                        help="the caller's own send-time jitter in ms (seeded; 0: a perfect sender clock)")
    parser.add_argument("--sender-stall-percent", type=float, default=2.0,
                        help="with --sender-jitter-ms: how often the sender stalls for 20-60 ms, percent of its frames")
    parser.add_argument("--jitter-args", default="", help="wcs-quality-replay --jitter overrides")
    parser.add_argument("--keep", metavar="DIR", help="keep the traces and outputs in DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wcs-replay-") as scratch:
        work = args.keep or scratch
        os.makedirs(work, exist_ok=True)
        reference = args.reference
        if reference is None:
            from bench_pesq import make_speech
            reference, _ = make_speech(work, sys.executable)
        results = measure(args.tool, reference, args.readings.split(","),
                          [float(p) for p in args.phases.split(",")], args.seed, args.jitter_args, work,
                          args.loss, args.jitter_ms, args.sender_jitter_ms, args.sender_stall_percent)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
