"""The scaling table of `make bench`: 1, 2, 4 ... 64 calls held at once.

Two series, both with a cheap wcs-bench-peer as the far ends (one process for all calls; it replays
pre-encoded Opus and decodes one received packet in 50, so 64 far ends cost little next to the
measured process; `--cheap`, Benchmarks/wcs-bench-peer/PeerMode.swift):
- wcs-agent: the peer's offers reach the agent through the emulator (external media legs); the agent
  answers automatically (`[calls] max_calls = 64`; the limit is 256);
- AudioPipe alone: a second, full wcs-bench-peer answers every call in one process, up to 64 calls.

Calls are added up to each row's count (a ramp), left 2 s to settle, then for `seconds` the
measured process's CPU (% of one core) and its threads' (the media clock threads `wcs-media`,
`wcs-media-2` … tick the calls; a second one starts when the first is busy, up to one per CPU), its RSS, the machine's busy share and load average, the send-time jitter of its RTP
(bench_capture), and what the far ends received and decoded (`Peer.check`) are taken.

The cost of each added call is fitted only on the rows the machine carried (`carried`).
"""
import os
import time

import bench_peer
from bench_capture import SendJitterCapture, udp_ports
from bench_proc import Window, rss_mb
from bench_profile import thread_cpu

SETTLE = 2.0
# A row the machine carried: the measured process sent at least this share of its due RTP packets,
# few of them late, and the machine had some idle time left. Rows past that measure the machine (or
# a saturated clock thread), not the cost of a call.
CARRIED_SENT_SHARE = 0.98
CARRIED_MACHINE_BUSY = 90.0
KEPT_PACE_LATE_SHARE = 0.05
# An extra media clock thread ends 5 s after its last call (MediaClockPool.defaultIdleLinger).
IDLE_CLOCK_WAIT = 15.0
CLOCK_THREAD = "wcs-media"  # AudioPipe's first media clock thread; the pool's others are wcs-media-2 … (MediaClockPool)


def _measure(pid, other_pids, seconds, peer):
    capture = SendJitterCapture(udp_ports(pid))
    threads0 = thread_cpu(pid)
    window = Window([pid, *other_pids]).start()
    time.sleep(seconds)
    per, machine, load = window.stop()
    threads1 = thread_cpu(pid)
    jitter = capture.stop()
    return {"cpu": per[pid], "rss": rss_mb(pid), "machine_busy": machine, "load": load, "seconds": seconds,
            "others_cpu": {p: per[p] for p in other_pids}, "send": jitter,
            "threads_cpu": {name: round(100 * (threads1[name] - threads0.get(name, 0)) / seconds, 2) for name in threads1},
            "far_end": peer.check()}


def thread_names(pid):
    """The names of `pid`'s threads now."""
    names = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


def _clock_names(names):
    return sorted(n for n in names if n == CLOCK_THREAD or n.startswith(CLOCK_THREAD + "-"))


def agent_series(rig, agent, peer, counts, seconds, threads=None):
    """Rows for the agent: [{calls, cpu, rss, machine_busy, load, send, peer_cpu}]. With a dict as
    `threads`, also the agent's thread count before the first call, at the biggest row, and once the
    calls have ended and the extra media clock threads had time to end (`IDLE_CLOCK_WAIT`)."""
    rows, calls = [], []
    if threads is not None:
        threads["before_names"] = sorted(thread_names(agent.proc.pid))
        threads["before"] = len(threads["before_names"])
    try:
        for count in counts:
            try:
                while len(calls) < count:
                    pid, call_id = bench_peer.call_client(rig, peer, agent.login)
                    calls.append((pid, call_id))
                    bench_peer.first_audio(peer, pid)
            except (RuntimeError, TimeoutError) as error:
                rows.append({"calls": count, "error": f"call {len(calls)} failed: {error}"})
                break
            time.sleep(SETTLE)
            row = _measure(agent.proc.pid, [peer.pid, rig.emulator.pid], seconds, peer)
            row["calls"] = count
            row["live"] = sum(len(rig.control("GET", f"/calls?login={agent.login}&state={state}"))
                              for state in ("established", "held"))
            row["thread_names"] = sorted(thread_names(agent.proc.pid))
            row["threads"] = len(row["thread_names"])
            rows.append(row)
    finally:
        for pid, call_id in calls:
            rig.control("POST", "/hangup", {"callId": call_id})
            peer.close(pid)
    if threads is not None:
        deadline = time.monotonic() + IDLE_CLOCK_WAIT
        while len(_clock_names(thread_names(agent.proc.pid))) > 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        names = thread_names(agent.proc.pid)
        threads.update({"after": len(names), "after_names": sorted(names), "clock_threads_after": _clock_names(names),
                        "biggest_row": max((r.get("threads", 0) for r in rows), default=0)})
    return rows


def audiopipe_series(offerer, answerer, counts, seconds):
    """Rows for a wcs-bench-peer answering every call in one process (AudioPipe alone)."""
    rows, calls = [], []
    try:
        for count in counts:
            try:
                while len(calls) < count:
                    pid = bench_peer.call_peer(offerer, answerer)
                    calls.append(pid)
                    bench_peer.first_audio(answerer, pid)
            except (RuntimeError, TimeoutError) as error:
                rows.append({"calls": count, "error": f"call {len(calls)} failed: {error}"})
                break
            time.sleep(SETTLE)
            row = _measure(answerer.pid, [offerer.pid], seconds, offerer)
            row["calls"] = count
            rows.append(row)
    finally:
        for pid in calls:
            offerer.close(pid)
            answerer.close(pid)
    return rows


def kept_pace(row):
    """Whether the measured process kept pace in `row`: no error and, when the send times were
    captured, RTP sent >= 98 % of due with at most 5 % of it late."""
    if "error" in row:
        return False
    send = row.get("send", {})
    if "error" in send or send.get("packets") is None:
        return True
    due = row["calls"] * 50 * row["seconds"]
    return send["packets"] >= CARRIED_SENT_SHARE * due and send["late"] <= KEPT_PACE_LATE_SHARE * send["packets"]


def carried(row):
    """Whether the machine carried `row`: the process kept pace and the machine was <= 90 % busy."""
    return kept_pace(row) and row["machine_busy"] <= CARRIED_MACHINE_BUSY


def _slope(rows, value):
    if len(rows) < 2:
        return None
    xs, ys = [r["calls"] for r in rows], [value(r) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None


def clock_threads(row):
    """{name: CPU %} of the measured process's media clock threads that ran in `row`, in start order."""
    threads = row.get("threads_cpu", {})
    names = [n for n in threads if n == CLOCK_THREAD or (n.startswith(CLOCK_THREAD + "-") and n[len(CLOCK_THREAD) + 1:].isdigit())]
    return {n: threads[n] for n in sorted(names, key=lambda n: int(n.rsplit("-", 1)[1]) if n != CLOCK_THREAD else 1)}


def _clock_cpu(row):
    """The busiest media clock thread's CPU % in `row` (the one that fills first)."""
    return max(clock_threads(row).values(), default=0.0)


def added_call_fit(rows):
    """Least-squares slope of CPU over the number of calls (% of a core per added call) on the rows
    the machine carried; when fewer than two were (a busy machine), on the rows where the process
    kept pace, and `basis` says so. Also the media clock thread's slope on those of the same rows
    with one clock thread and the call count at which that one thread would be 100 % busy, and the
    slope over all rows.
    Marks the rows used (`row["fit"]`)."""
    ran = [r for r in rows if "error" not in r]
    fitted, basis = [r for r in ran if carried(r)], "carried"
    if len(fitted) < 2:
        fitted, basis = [r for r in ran if kept_pace(r)], "kept pace"
    if len(fitted) < 2:
        fitted = []
    for row in rows:
        row["fit"] = row in fitted
    clock = _slope([r for r in fitted if len(clock_threads(r)) <= 1], _clock_cpu)
    return {"slope": _slope(fitted, lambda r: r["cpu"]), "rows": [r["calls"] for r in fitted], "basis": basis,
            "clock_thread_slope": clock, "clock_thread_saturates_at": 100 / clock if clock and clock > 0 else None,
            "slope_all_rows": _slope(ran, lambda r: r["cpu"]),
            "rule": f"carried: RTP sent >= {CARRIED_SENT_SHARE:.0%} of due, late <= {KEPT_PACE_LATE_SHARE:.0%} of sent, "
                    f"machine <= {CARRIED_MACHINE_BUSY:.0f} % busy"}


def main():
    """`python3 scripts/bench_scaling.py [--counts 1,16,64] [--seconds 8] [--full-peer]`: the agent's
    scaling rows alone (after `make bench-build`), as `make bench` prints them; --full-peer makes the
    far ends encode and decode every frame (the bench before 2026-12-01's fourth session)."""
    import argparse
    import json

    from bench_rig import ROOT, Agent, Rig
    from bench_table import far_end_note, fit_note, scaling_table

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--counts", default="1,16,64")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--full-peer", action="store_true")
    parser.add_argument("--floor", type=float, default=None, help="Opus floor in %% of a core for the × floor column")
    parser.add_argument("--max-clocks", type=int, default=None,
                        help="WCS_MEDIA_CLOCKS for the agent: at most N media clock threads (1: the single clock of before)")
    args = parser.parse_args()
    if args.max_clocks is not None:
        os.environ["WCS_MEDIA_CLOCKS"] = str(args.max_clocks)
    rig = Rig(["1001"])
    try:
        agent = Agent(rig, "1001")
        peer = bench_peer.Peer(rig.procs, os.path.join(rig.work, "peer.log"), cheap=not args.full_peer)
        threads = {}
        rows = agent_series(rig, agent, peer, [int(c) for c in args.counts.split(",")], args.seconds, threads)
    finally:
        rig.stop()
    fit = added_call_fit(rows)
    print(scaling_table(rows, "agent", "CPU % peer / emulator", args.floor))
    print(far_end_note(rows))
    print(fit_note(fit))
    print(f"Agent threads: {threads['before']} before the first call, {threads['biggest_row']} at most in a row, "
          f"{threads['after']} after the calls ended (media clock threads left: {', '.join(threads['clock_threads_after']) or 'none'}).")
    with open(os.path.join(ROOT, ".build/bench-scaling.json"), "w") as f:
        json.dump({"rows": rows, "fit": fit, "full_peer": args.full_peer, "threads": threads}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
