#!/usr/bin/python3
"""Issue 22's door-station figures for `make bench` (bench.py calls `door_figures`; runs alone too).

`wcs-door-bench` (Benchmarks/wcs-door-bench, the release build) sends door codes as DTMF tones with
espeak-ng speech 10 dB under them through Opus at 5 % packet loss into the in-audio detector, then
minutes of speech and synthesised music with no digits (false keys), and measures the detector's CPU
per 20 ms frame beside the Opus floor (encode + decode per frame). Full: 1000 codes and 60 minutes;
QUICK=1: 100 codes and 5 minutes. Printed, never asserted.
"""
import json
import os
import subprocess
import sys

from bench_rig import bin_dir

QUICK = os.environ.get("QUICK", "") not in ("", "0")


def door_figures(quick=QUICK):
    """The harness's JSON, or {"error": ...} when it cannot run."""
    codes, minutes = (100, 5) if quick else (1000, 60)
    try:
        out = subprocess.run([os.path.join(bin_dir(), "wcs-door-bench"), "--codes", str(codes), "--quiet-minutes", str(minutes)],
                             capture_output=True, text=True, check=True, timeout=3600).stdout
        return json.loads(out.strip().splitlines()[-1])
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as error:
        return {"error": str(error)}


def door_lines(figures):
    """The lines bench.py prints under the Opus floor."""
    if "error" in figures:
        return [f"door station (in-audio DTMF): not measured ({figures['error']})"]
    a = figures["in_audio"]
    return [
        f"in-audio DTMF detector: {a['detector_us_per_frame']} µs CPU per 20 ms frame = {a['detector_percent_of_core']} % of a "
        f"core per call (goal ≤ 0.2 %), beside the Opus floor {figures['opus_floor_us_per_frame']} µs = "
        f"{figures['opus_floor_percent_of_core']} %",
        f"in-audio door codes (tones, speech 10 dB under, Opus at 5 % loss): {a['codes_intact']}/{a['codes']} codes intact, "
        f"{a['keys_found']}/{a['keys_sent']} keys, {a['extra_keys']} extra; last key reported {a['last_key_ms_median']} ms (median), "
        f"{a['last_key_ms_p99']} ms (p99), {a['last_key_ms_max']} ms (max) after its tone started (goal ≤ 150 ms)",
        f"false keys in {a['quiet_seconds'] / 60:.0f} min of espeak-ng speech (8 voices) and synthesised music: {a['false_keys']} "
        f"({a['false_key_list'] or 'none'})",
    ]


if __name__ == "__main__":
    result = door_figures()
    print("\n".join(door_lines(result)))
    json.dump(result, sys.stderr)
