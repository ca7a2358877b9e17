#!/usr/bin/python3
"""make bench: the figures of issue 9 for the binary users get, printed as tables (never asserted).

The binaries are those of `make bench-build`: the release build with the Swift runtime linked in
(--static-swift-stdlib, as `make deb` ships it; .build-deb/release). WCS_BENCH_BIN=DIR measures
another build (e.g. .build/release, the dynamic one); the table names the one it ran.

One run, on loopback, with the WCS emulator as server and SIP side:
- the Opus floor: libopus encode + decode at the agent's settings (wcs-bench);
- libopus at a call's cadence (one frame per 20 ms, wcs-bench --opus-cadence): a reference printed under it;
- wcs-agent idle; wake latencies over N tries (bench_wake), pushes by `wcs-agent reconnect` and by the
  agent's push webhook; `reconnect` wall time; the same over wss:// (bench_wake.tls_wake);
- the scaling table: 1...64 calls to the agent and 1...64 calls to AudioPipe alone, far ends in a
  cheap wcs-bench-peer (pre-encoded Opus, 1 packet in 50 decoded; bench_scaling), with the far
  ends' CPU and the machine's load next to each row; the cost of each added call is fitted on the
  rows the machine carried;
- the aiortc 1.4 answerer as the comparison peer, answering the same kind of calls (bench_quality);
- PESQ-WB of espeak-ng speech from the caller, clean and with `--impair loss=5,jitter=30,seed=1`;
- issue 22's door station (bench_door): in-audio DTMF codes under speech over Opus at 5 % loss, false
  keys in speech and music, the detector's CPU beside the Opus floor.

QUICK=1 (make bench QUICK=1) runs fewer tries, shorter windows and fewer rows. Send-time jitter
needs a packet socket (root or CAP_NET_RAW); without it those columns show "–". The raw results go
to .build/bench-results.json. The machine is shared: read each row with its load next to it.
"""
import json
import os
import subprocess
import sys
import time

from bench_peer import Peer
from bench_pesq import ensure_venv
from bench_door import door_figures, door_lines
from bench_proc import loadavg, rss_mb, sample
from bench_quality import aiortc_figures, pesq_figures
from bench_rig import ROOT, Agent, Rig, agent_binary, bin_dir, swift_runtime
from bench_scaling import added_call_fit, agent_series, audiopipe_series
from bench_table import far_end_note, fit_note, main_table, scaling_table
from bench_wake import reconnect_times, tls_wake, wake_tries, webhook_config

QUICK = os.environ.get("QUICK", "") not in ("", "0")
PLAN = {
    "tries": 10 if QUICK else 50,
    "window": 3.0 if QUICK else 8.0,
    "agent_counts": [1, 4, 16, 64] if QUICK else [1, 2, 4, 8, 16, 32, 64],
    "audiopipe_counts": [1, 16, 64] if QUICK else [1, 2, 4, 8, 16, 32, 64],
    "aiortc_tries": 3 if QUICK else 10,
}


def log(text):
    sys.stderr.write(f"[bench {time.strftime('%H:%M:%S')}] {text}\n")
    sys.stderr.flush()


def opus_floor():
    out = subprocess.run([os.path.join(bin_dir(), "wcs-bench")], capture_output=True, text=True, check=True)
    media = json.loads(out.stdout)
    # CPU time of one encode and one decode per 20 ms frame (wall-clock figures are printed too, but
    # they count other processes' turns on a loaded machine); 50 frames/s, as % of one core
    per_frame = media["opus_cpu_us_per_frame_encode_and_decode"]
    return {"cpu_percent": per_frame * 50 / 1e6 * 100, "complexity": media.get("opus_complexity"), "cpu_us": per_frame,
            "encode_us": media["opus_encode_us_per_frame"], "decode_us": media["opus_decode_us_per_frame"],
            "loopback": media}


def opus_cadence():
    """libopus alone run as a call runs it: one encode + decode every 20 ms with the thread asleep in
    between, against the same frames back to back (the floor's way), alternating blocks, the floor's
    signal (`wcs-bench --opus-cadence`; CodecCadenceBenchmark). A reference for reading the CPU rows,
    not a goal: the goals stay against the floor above. None when it cannot run."""
    try:
        out = subprocess.run([os.path.join(bin_dir(), "wcs-bench"), "--opus-cadence"], capture_output=True, text=True,
                             check=True, timeout=300).stdout
        signals = json.loads(out.strip().splitlines()[-1])
        figures = signals["floor"]
    except (subprocess.SubprocessError, OSError, ValueError, KeyError, IndexError) as error:
        log(f"opus cadence: not measured ({error})")
        return None
    back, paced = figures["back_to_back_us_per_frame"], figures["paced_20ms_us_per_frame"]
    # The printed line uses the floor's signal; the raw results keep every signal measured (the agent's tone too).
    return {"back_to_back_us": back, "paced_us": paced, "paced_percent": paced * 50 / 1e4, "ratio": paced / back,
            "frames_per_mode": figures["frames_per_mode"], "signals": signals}


def pesq_venv():
    try:
        return ensure_venv(os.path.join(ROOT, ".build/bench-venv")), None
    except (subprocess.CalledProcessError, OSError) as error:
        return None, f"pesq not installable: {error}"


def run(results):
    log(f"plan: {PLAN}; load average {loadavg():.1f}")
    venv, venv_error = pesq_venv()
    results["floor"] = opus_floor()
    log(f"Opus floor {results['floor']['cpu_percent']:.2f} % of a core")
    results["opus_cadence"] = opus_cadence()
    log("door station: in-audio DTMF codes, false keys, detector CPU")
    results["door"] = door_figures(QUICK)
    rig = Rig(["1001", "1002", "1003"])
    results["work"] = rig.work
    try:
        agent = Agent(rig, "1001", config_extra=webhook_config(rig.work))
        time.sleep(1)
        per, machine, load = sample([agent.proc.pid], 5)
        results["agent_idle"] = {"cpu": per[agent.proc.pid], "rss": rss_mb(agent.proc.pid), "machine_busy": machine,
                                 "load": load}
        log(f"wake: {PLAN['tries']} tries")
        results["wake"] = wake_tries(rig, agent, PLAN["tries"])
        results["wake"]["reconnect"] = reconnect_times(agent, PLAN["tries"])
        log(f"wake by the agent's push webhook: {PLAN['tries']} tries")
        results["wake"]["webhook"] = wake_tries(rig, agent, PLAN["tries"], webhook=True)
        log(f"wake over wss://: {PLAN['tries']} tries")
        results["wake"]["wss"] = tls_wake(PLAN["tries"])
        peer = Peer(rig.procs, os.path.join(rig.work, "peer.log"), cheap=True)  # far ends: not measured
        log(f"agent scaling {PLAN['agent_counts']}")
        results["agent_scaling"] = agent_series(rig, agent, peer, PLAN["agent_counts"], PLAN["window"])
        results["added_call_fit"] = added_call_fit(results["agent_scaling"])
        results["added_call_cost"] = results["added_call_fit"]["slope"]
        log("aiortc answerer")
        results["aiortc"] = aiortc_figures(rig, peer, PLAN["aiortc_tries"], PLAN["window"])
        if venv:
            log("PESQ-WB")
            recorder = Agent(rig, "1003", sink="record:" + os.path.join(rig.work, "recordings"))
            results["pesq"] = pesq_figures(rig, recorder, venv)
        else:
            results["pesq"] = {"error": venv_error}
        log(f"AudioPipe scaling {PLAN['audiopipe_counts']}")
        offerer = Peer(rig.procs, os.path.join(rig.work, "peer-offerer.log"), cheap=True)
        answerer = Peer(rig.procs, os.path.join(rig.work, "peer-answerer.log"))
        results["audiopipe_scaling"] = audiopipe_series(offerer, answerer, PLAN["audiopipe_counts"], PLAN["window"])
        results["audiopipe_fit"] = added_call_fit(results["audiopipe_scaling"])
    finally:
        rig.stop()


def main():
    results = {"quick": QUICK, "plan": PLAN, "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "load_at_start": loadavg(), "agent_binary": agent_binary(),
               "swift_runtime": swift_runtime(agent_binary())}
    try:
        run(results)
    finally:
        results["load_at_end"] = loadavg()
        with open(os.path.join(ROOT, ".build/bench-results.json"), "w") as f:
            json.dump(results, f, indent=1, default=str)
    floor = results["floor"]
    print(f"wcs-agent bench, {results['started']}{' (QUICK)' if QUICK else ''}; 2 cores shared: load average "
          f"{results['load_at_start']:.1f} at start, {results['load_at_end']:.1f} at end")
    print(f"wcs-agent measured: {results['agent_binary']} (Swift runtime {results['swift_runtime']})")
    print(f"Opus floor: encode + decode {floor['cpu_us']} µs CPU per 20 ms frame (wall clock: encode "
          f"{floor['encode_us']} µs, decode {floor['decode_us']} µs), complexity {floor['complexity']}; "
          f"wake failures: {results['wake']['failed']}")
    cadence = results.get("opus_cadence")
    if cadence:
        print(f"libopus at a call's cadence (one frame per 20 ms, the thread asleep in between; `wcs-bench --opus-cadence`): "
              f"{cadence['paced_us']:.0f} µs per frame = {cadence['paced_percent']:.2f} % of a core, "
              f"{cadence['ratio']:.2f} × the {cadence['back_to_back_us']:.0f} µs of the same frames back to back "
              f"(a reference for the CPU rows; their goals stay against the floor)")
    for line in door_lines(results.get("door") or {"error": "not run"}):
        print(line)
    print()
    print(main_table(results))
    fit = results.get("added_call_fit") or {}
    print("\nScaling, wcs-agent (far ends: cheap wcs-bench-peer, pre-encoded Opus, 1 packet in 50 decoded; agent "
          "max_calls = 64; calls past the first are held, media runs):")
    print(scaling_table(results["agent_scaling"], "agent", "CPU % peer / emulator", floor["cpu_percent"]))
    print(far_end_note(results["agent_scaling"]))
    print(fit_note(fit))
    print("\nScaling, AudioPipe alone (a full wcs-bench-peer answering every call in one process; cheap offering peer):")
    print(scaling_table(results["audiopipe_scaling"], "answerer", "CPU % offering peer", floor["cpu_percent"]))
    print(far_end_note(results["audiopipe_scaling"]))
    print(fit_note(results.get("audiopipe_fit")))
    print(f"\nraw results: .build/bench-results.json; logs: {results.get('work')}")


if __name__ == "__main__":
    main()
