#!/usr/bin/python3
"""The first call of a fresh agent against later ones: is loading libnice on the critical path?

The agent opens libnice (dlopen) at its first call instead of at start, and starts that load as soon
as a call is likely (a push, a `reconnect`, the server's call announcement) on a worker thread.
This measures what the first call of a process pays for it:

`python3 scripts/bench_first_call.py [--tries N] [--binary B] [--binary B2 ...]`

Each try starts a fresh agent (its own login) per binary, interleaved (A, B, A, B, ...), lets it
settle idle, then:
- push: puts it to sleep, rings it; the push runs `wcs-agent reconnect`; push -> session resumed,
  push -> first decoded audio and offer -> first decoded audio of its FIRST call (the libnice load happens here), then the
  same for a SECOND call in the same process (libnice already loaded);
- the agent's own log line `libnice loaded from ... in X ms` (the load's wall time, worker thread).
Prints p50/p95 per binary. An agent that links libnice (before 2026-12-01's fourth session) has no
load line and serves as the reference. Figures only, nothing asserted.
"""
import argparse
import os
import re
import statistics
import time

from bench_rig import Agent, Rig
from bench_wake import wake_once


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def load_ms(agent):
    with open(os.path.join(agent.base, "agent.log"), errors="replace") as f:
        found = re.search(r"libnice loaded from \S+ in ([0-9.]+) ms", f.read())
    return float(found.group(1)) if found else None


def stop(agent):
    for proc in (agent.events.proc, agent.proc):
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except Exception:
            proc.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--binary", action="append", default=None,
                        help="wcs-agent to measure; repeat for an interleaved A/B (default: the bench build)")
    parser.add_argument("--settle", type=float, default=1.0, help="idle seconds before the first call")
    args = parser.parse_args()
    binaries = args.binary or [None]
    logins = [str(2000 + n) for n in range(args.tries * len(binaries))]
    rig = Rig(logins)
    keys = ("first_push_to_resumed", "second_push_to_resumed", "first_push_to_audio", "second_push_to_audio", "first_offer_to_audio", "second_offer_to_audio", "load_ms")
    results = {b: {k: [] for k in keys} | {"failed": 0} for b in binaries}
    names = {}
    try:
        for n in range(args.tries):
            for i, binary in enumerate(binaries):
                agent = Agent(rig, logins[n * len(binaries) + i], binary=binary)
                names[binary] = agent.bin
                try:
                    rig.set_push_target(agent)
                    time.sleep(args.settle)
                    first = wake_once(rig, agent)
                    second = wake_once(rig, agent)
                except (TimeoutError, RuntimeError, IndexError):
                    results[binary]["failed"] += 1
                    stop(agent)
                    continue
                r = results[binary]
                r["first_push_to_resumed"].append(first["push_to_resumed"])
                r["second_push_to_resumed"].append(second["push_to_resumed"])
                r["first_push_to_audio"].append(first["push_to_first_audio"])
                r["second_push_to_audio"].append(second["push_to_first_audio"])
                r["first_offer_to_audio"].append(first["offer_to_first_audio"])
                r["second_offer_to_audio"].append(second["offer_to_first_audio"])
                loaded = load_ms(agent)
                if loaded is not None:
                    r["load_ms"].append(loaded)
                stop(agent)
    finally:
        rig.stop()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"first call of a fresh agent vs its second call, {args.tries} agents per binary (load average {load})")
    print(f"  {'ms, p50 / p95':<34}" + "".join(f"{chr(65 + i):>24}" for i in range(len(binaries))))
    for key in keys:
        cells = []
        for b in binaries:
            values = [v for v in results[b][key] if v is not None]
            cells.append(f"{percentile(values, 50):>9.1f} / {percentile(values, 95):>6.1f} (n={len(values)})"
                         if values else f"{'-':>24}")
        print(f"  {key:<34}" + "".join(f"{c:>24}" for c in cells))
    for i, b in enumerate(binaries):
        print(f"  {chr(65 + i)}: {names[b]}, failed {results[b]['failed']}")


if __name__ == "__main__":
    main()
