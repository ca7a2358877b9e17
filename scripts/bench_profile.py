#!/usr/bin/python3
"""make bench-profile: where one call's CPU goes in the agent (a focused run, not part of make bench).

    python3 scripts/bench_profile.py [--calls 1,16] [--seconds 10] [--record] [--agent BIN]
    python3 scripts/bench_profile.py --first-audio 20 [--agent BIN]
    python3 scripts/bench_profile.py --send-path 3
    python3 scripts/bench_profile.py --opus-cadence 3

For each count (0: the idle agent, logged in, no call) the agent (release build, or --agent BIN, e.g. the static .build-deb one) answers
that many wcs-bench-peer calls through the emulator, as in the scaling table; after 2 s to settle,
over one window of `--seconds`:
- the agent's CPU (% of one core, /proc) and its threads' shares;
- syscalls per second by thread and by name, and context switches (perf, tracepoint
  raw_syscalls:sys_enter; needs root or perf_event_paranoid <= 1), with the RTP packets per
  second both ways, so the figure per packet can be read off;
- with --record, a `perf record -g` profile of the agent: the top shared objects and symbols.
- how many RTP packets the calls sent straight on the selected pair's socket (`packets_sent_direct`).
  The old paths (all sends through libnice, every receive on the loop) are configuration, not
  environment switches of the agent: `ICEConfiguration.sendsThroughLibniceOnly` and
  `CallMediaConfiguration.receivesOnLoopOnly`, set by the benchmarks (`--send-path` below compares
  the two send paths in one process; wcs-quality-replay `--reading exact` replays the loop receive).
With --first-audio N it runs N of the bench's wake tries instead (the emulator's aiortc leg calls
the sleeping agent) and prints offer -> first decoded audio (the agent's own `latency_ms`): median,
min and max.
With --send-path N it runs `wcs-bench --send-path` N times: the send path's CPU per packet on the
sending thread (libnice's send against one sendto on the selected socket, in alternating blocks;
SRTP protect per profile).
With --opus-cadence N it runs `wcs-bench --opus-cadence` N times: libopus encode + decode CPU per frame
back to back (as the Opus floor) and at a call's cadence (one frame per 20 ms, the thread sleeping in
between, as the media clock runs one call), for the floor's signal and the bench agent's 880 Hz tone.
Prints one block per count and writes .build/bench-profile.json. Runs on 127.0.0.1 only.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_peer  # noqa: E402
from bench_proc import Window, loadavg, rss_mb  # noqa: E402
from bench_rig import ROOT, Agent, Rig, peer_binary as bench_peer_binary  # noqa: E402
from bench_wake import wake_tries  # noqa: E402

SETTLE = 2.0


def syscall_names():
    """{number: name} from the x86-64 syscall table header (numbers stay numbers without it)."""
    names = {}
    for header in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"):
        if os.path.exists(header):
            with open(header) as f:
                for line in f:
                    match = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
                    if match:
                        names[int(match.group(2))] = match.group(1)
            break
    return names


def thread_cpu(pid):
    """{thread name: CPU seconds} of `pid`'s threads (same-named threads summed)."""
    tick = os.sysconf("SC_CLK_TCK")
    result = collections.Counter()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        result[name] += (int(fields[11]) + int(fields[12])) / tick
    return result


def syscall_trace(pid, seconds, names):
    """Syscalls of `pid` over `seconds`: ({thread: count}, {name: count}, context switches)."""
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "perf.data")
        subprocess.run(["perf", "record", "-q", "-e", "raw_syscalls:sys_enter", "-e", "context-switches", "-p", str(pid),
                        "-o", data, "--", "sleep", str(seconds)], capture_output=True, check=True)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,event,trace"], capture_output=True, text=True,
                                check=True).stdout
    by_thread, by_name, switches = collections.Counter(), collections.Counter(), 0
    for line in script.splitlines():
        if "context-switches" in line or "cs:" in line:
            switches += 1
            continue
        match = re.match(r"\s*(.+?)\s+raw_syscalls:sys_enter:\s+NR\s+(\d+)", line)
        if not match:
            continue
        by_thread[match.group(1).strip()] += 1
        number = int(match.group(2))
        by_name[names.get(number, str(number))] += 1
    return by_thread, by_name, switches


def cpu_profile(pid, seconds):
    """Top shared objects and symbols of a `perf record -g` of `pid` (percent of samples)."""
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "perf.data")
        subprocess.run(["perf", "record", "-q", "-F", "999", "-g", "-p", str(pid), "-o", data, "--", "sleep",
                        str(seconds)], capture_output=True, check=True)
        report = {}
        for key in ("dso", "dso,sym"):
            out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", key, "--stdio", "-g", "none",
                                  "--percent-limit", "0.7"], capture_output=True, text=True).stdout
            report[key] = [line.strip() for line in out.splitlines() if line.strip() and not line.startswith("#")][:30]
        return report


def measure(rig, agent, peer, count, calls, seconds, record, names):
    while len(calls) < count:
        pid, call_id = bench_peer.call_client(rig, peer, agent.login)
        calls.append((pid, call_id))
        bench_peer.first_audio(peer, pid)
    time.sleep(SETTLE)
    threads0 = thread_cpu(agent.proc.pid)
    window = Window([agent.proc.pid]).start()
    by_thread, by_name, switches = syscall_trace(agent.proc.pid, seconds, names)
    per, machine, load = window.stop()
    threads1 = thread_cpu(agent.proc.pid)
    wall = seconds
    row = {"calls": count, "cpu": per[agent.proc.pid], "rss": rss_mb(agent.proc.pid), "machine_busy": machine,
           "load": load, "seconds": seconds,
           "threads_cpu": {name: round(100 * (threads1[name] - threads0.get(name, 0)) / wall, 2) for name in threads1},
           "syscalls_per_s": {name: round(n / seconds, 1) for name, n in by_thread.most_common()},
           "syscall_names_per_s": {name: round(n / seconds, 1) for name, n in by_name.most_common(15)},
           "context_switches_per_s": round(switches / seconds, 1)}
    row["syscalls_total_per_s"] = round(sum(by_thread.values()) / seconds, 1)
    # 50 RTP packets/s each way per call: syscalls per packet (sent + received)
    row["syscalls_per_packet"] = round(row["syscalls_total_per_s"] / (100 * count), 2) if count else None
    # the receive side: reads, the loop's polls and eventfd wakeups, per received packet (50/s per call)
    receive_names = ("recvmsg", "recvfrom", "recvmmsg", "read", "write", "poll", "ppoll")
    row["receive_syscalls_per_received_packet"] = round(
        sum(n for name, n in by_name.items() if name in receive_names) / seconds / (50 * count), 2) if count else None
    stats = [call.get("stats") or {} for call in agent.status().get("calls", [])]
    row["packets_sent"] = sum(int(st.get("packets_sent", 0)) for st in stats)
    row["packets_sent_direct"] = sum(int(st.get("packets_sent_direct", 0)) for st in stats)
    if record:
        row["profile"] = cpu_profile(agent.proc.pid, seconds)
    return row


def print_row(row):
    print(f"\n== {row['calls']} call(s): agent CPU {row['cpu']:.2f} % of a core, RSS {row['rss']:.1f} MB; "
          f"machine busy {row['machine_busy']:.0f} %, "
          f"load {row['load']:.1f}")
    print(f"syscalls {row['syscalls_total_per_s']}/s = {row['syscalls_per_packet']} per RTP packet (50/s each way per call); "
          f"context switches {row['context_switches_per_s']}/s; "
          f"receive side (recvmsg, read, write, poll) {row['receive_syscalls_per_received_packet']} per received packet")
    print(f"sent straight on the selected socket: {row['packets_sent_direct']} RTP+RTCP datagrams, for {row['packets_sent']} "
          "RTP packets sent in all (through libnice or straight on the selected socket)")
    print("threads CPU %:", ", ".join(f"{k} {v}" for k, v in sorted(row["threads_cpu"].items(), key=lambda kv: -kv[1]) if v))
    print("syscalls/s by thread:", ", ".join(f"{k} {v}" for k, v in row["syscalls_per_s"].items()))
    print("syscalls/s by name:", ", ".join(f"{k} {v}" for k, v in row["syscall_names_per_s"].items()))
    for key, lines in row.get("profile", {}).items():
        print(f"perf by {key}:")
        for line in lines:
            print("   ", line)


def first_audio(tries):
    rig = Rig(["1001"])
    try:
        agent = Agent(rig, "1001")
        result = wake_tries(rig, agent, tries)
    finally:
        rig.stop()
    values = sorted(result["offer_to_first_audio"])
    if not values:
        print(f"no try succeeded: {result.get('errors')}")
        return
    print(f"offer -> first decoded audio over {len(values)} tries ({result['failed']} failed): median "
          f"{values[len(values) // 2]:.1f} ms, min {values[0]:.1f}, max {values[-1]:.1f}; load {loadavg():.1f}; "
          f"agent log: {rig.work}/agent-1001/agent.log")
    os.makedirs(os.path.join(ROOT, ".build"), exist_ok=True)
    with open(os.path.join(ROOT, ".build/bench-profile.json"), "w") as f:
        json.dump({"agent": os.environ.get("WCS_BENCH_AGENT"), "first_audio": result}, f, indent=1)


def send_path(runs):
    bench = os.path.join(os.path.dirname(os.environ.get("WCS_BENCH_AGENT") or bench_peer_binary()), "wcs-bench")
    for run in range(runs):
        out = subprocess.run([bench, "--send-path"], capture_output=True, text=True, check=True).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        protect = ", ".join(f"{k} {v}" for k, v in sorted(figures["srtp_protect_us_per_packet"].items()))
        print(f"send path, CPU µs per packet ({figures['packets']} packets, load {loadavg():.1f}): libnice "
              f"{figures['libnice_send_us_per_packet']}, direct sendto {figures['direct_send_us_per_packet']}; "
              f"SRTP protect: {protect}")


def opus_cadence(runs):
    bench = os.path.join(os.path.dirname(os.environ.get("WCS_BENCH_AGENT") or bench_peer_binary()), "wcs-bench")
    for run in range(runs):
        out = subprocess.run([bench, "--opus-cadence"], capture_output=True, text=True, check=True).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        cells = []
        for signal in ("floor", "tone880"):
            f = figures[signal]
            back, paced = f["back_to_back_us_per_frame"], f["paced_20ms_us_per_frame"]
            cells.append(f"{signal}: back to back {back} us ({back * 50 / 1e4:.2f} % of a core at 50/s), paced {paced} us "
                         f"({paced * 50 / 1e4:.2f} %), paced / back to back {paced / back:.2f}")
        print(f"libopus encode + decode CPU per frame, complexity {figures['opus_complexity']}, "
              f"{figures['floor']['frames_per_mode']} frames per mode, load {loadavg():.1f}: " + "; ".join(cells))
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", default="1,16")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--record", action="store_true", help="also a perf record -g CPU profile")
    parser.add_argument("--agent", help="agent binary (default: the bench's, see bench_rig.agent_binary)")
    parser.add_argument("--send-path", type=int, metavar="N", help="N runs of wcs-bench --send-path (CPU per sent packet)")
    parser.add_argument("--first-audio", type=int, metavar="N", help="N wake tries: offer -> first decoded audio")
    parser.add_argument("--opus-cadence", type=int, metavar="N",
                        help="N runs of wcs-bench --opus-cadence (libopus back to back against one frame per 20 ms)")
    args = parser.parse_args()
    if args.agent:
        os.environ["WCS_BENCH_AGENT"] = os.path.abspath(args.agent)
    if args.first_audio:
        first_audio(args.first_audio)
        return
    if args.send_path:
        send_path(args.send_path)
        return
    if args.opus_cadence:
        opus_cadence(args.opus_cadence)
        return
    names = syscall_names()
    rig = Rig(["1001"])
    rows = []
    try:
        agent = Agent(rig, "1001")
        time.sleep(2)
        print(f"agent {agent.bin}; idle RSS {rss_mb(agent.proc.pid):.1f} MB; load average {loadavg():.1f}")
        peer = bench_peer.Peer(rig.procs, os.path.join(rig.work, "peer.log"))
        calls = []
        try:
            for count in [int(c) for c in args.calls.split(",")]:
                row = measure(rig, agent, peer, count, calls, args.seconds, args.record, names)
                rows.append(row)
                print_row(row)
                sys.stdout.flush()
        finally:
            for pid, call_id in calls:
                rig.control("POST", "/hangup", {"callId": call_id})
                peer.close(pid)
    finally:
        rig.stop()
        os.makedirs(os.path.join(ROOT, ".build"), exist_ok=True)
        with open(os.path.join(ROOT, ".build/bench-profile.json"), "w") as f:
            json.dump({"agent": os.environ.get("WCS_BENCH_AGENT"), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
