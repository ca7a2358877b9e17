"""The scaling table of `make bench`: 1, 2, 4 ... 64 calls held at once.

Two series, both with wcs-bench-peer as the far ends (one process for all calls):
- wcs-agent: the peer's offers reach the agent through the emulator (external media legs); the agent
  answers automatically (`[calls] max_calls = 64`; the limit is 256);
- AudioPipe alone: a second wcs-bench-peer answers every call in one process, up to 64 calls.

Calls are added up to each row's count (a ramp), left 2 s to settle, then for `seconds` the
measured process's CPU (% of one core), its RSS, the machine's busy share and load average, and the
send-time jitter of its RTP (bench_capture) are taken.
"""
import time

import bench_peer
from bench_capture import SendJitterCapture, udp_ports
from bench_proc import Window, rss_mb

SETTLE = 2.0


def _measure(pid, other_pids, seconds):
    capture = SendJitterCapture(udp_ports(pid))
    window = Window([pid, *other_pids]).start()
    time.sleep(seconds)
    per, machine, load = window.stop()
    jitter = capture.stop()
    return {"cpu": per[pid], "rss": rss_mb(pid), "machine_busy": machine, "load": load, "seconds": seconds,
            "others_cpu": {p: per[p] for p in other_pids}, "send": jitter}


def agent_series(rig, agent, peer, counts, seconds):
    """Rows for the agent: [{calls, cpu, rss, machine_busy, load, send, peer_cpu}]."""
    rows, calls = [], []
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
            row = _measure(agent.proc.pid, [peer.pid, rig.emulator.pid], seconds)
            row["calls"] = count
            row["live"] = sum(len(rig.control("GET", f"/calls?login={agent.login}&state={state}"))
                              for state in ("established", "held"))
            rows.append(row)
    finally:
        for pid, call_id in calls:
            rig.control("POST", "/hangup", {"callId": call_id})
            peer.close(pid)
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
            row = _measure(answerer.pid, [offerer.pid], seconds)
            row["calls"] = count
            rows.append(row)
    finally:
        for pid in calls:
            offerer.close(pid)
            answerer.close(pid)
    return rows


def added_call_cost(rows):
    """Least-squares slope of CPU over the number of calls (% of a core per added call)."""
    rows = [r for r in rows if "error" not in r]
    if len(rows) < 2:
        return None
    xs, ys = [r["calls"] for r in rows], [r["cpu"] for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None
