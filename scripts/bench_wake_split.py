"""Where a wake by `wcs-agent reconnect` goes, split by who spends it: from the kernel's own record.

`perf trace` (system wide, a few syscalls and the exec tracepoint, µs stamps on one clock) watches
the wake tries of scripts/bench_wake.py over ws:// and cuts each into the steps below, each charged
to the process that spends it. Nothing in the agent or the emulator is changed or asked; the only
cost added is perf's (a few µs per traced syscall).

    push -> sh exec'd                       emulator (Python spawns `sh -c COMMAND`)
    sh exec'd -> front exec'd               sh
    front exec'd -> request written         the front (loader, runtime, routing, `hello`, request)
    request written -> read by the daemon   the daemon's loop wake-up
    request read -> TCP connect             the daemon (token, session, lws client start)
    TCP connect -> upgrade written          the daemon + the kernel's TCP handshake
    upgrade written -> 101 written          the emulator (Python websockets: its answer time)
    101 written -> `connection` written     the daemon (lws reads the 101, we write the frame)
    `connection` written -> reply written   the emulator (its resume answer)
    reply written -> resumed (time_us)      the daemon (reads the answer, confirms, goes online)

The push time is the emulator's `time.time()` and `resumed`'s `time_us` the agent's wall clock;
both are put on perf's clock through `getppid()` markers the bench makes between two
`time.time()` reads. Needs root (perf trace -a) and linux-perf.

    python3 scripts/bench_wake_split.py --tries 30 [--binary .build-deb/release/wcs-agent]
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

LINE = re.compile(r"^\s*([\d.]+) \(\s*[\d. ]*(?:ms)?\): (.+?)/(\d+) (?:\.\.\. \[continued\]: )?([\w:]+)\((.*?)\)(?:\s+= (\S+))?")
STEPS = [  # (name, who, start mark, end mark)
    ("push -> sh exec'd", "emulator", "push", "sh"),
    ("sh exec'd -> front exec'd", "sh", "sh", "front"),
    ("front exec'd -> request written", "front", "front", "request_sent"),
    ("request written -> read by the daemon", "daemon", "request_sent", "request_read"),
    ("request read -> TCP connect", "daemon", "request_read", "connect"),
    ("TCP connect -> upgrade written", "daemon+kernel", "connect", "upgrade_sent"),
    ("upgrade written -> 101 written", "emulator", "upgrade_sent", "101_sent"),
    ("101 written -> `connection` written", "daemon", "101_sent", "connection_sent"),
    ("`connection` written -> reply written", "emulator", "connection_sent", "reply_sent"),
    ("reply written -> resumed (time_us)", "daemon", "reply_sent", "resumed"),
]


def marker():
    """(wall clock, own tid) around one getppid(): perf sees the syscall between the two reads."""
    before = time.time()
    os.getppid()
    after = time.time()
    return (before + after) / 2


def parse(path):
    """[(perf seconds, comm, tid, name, args, result)] of the trace, in time order."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m and "[continued]" not in line:
                events.append((float(m.group(1)) / 1000, m.group(2), int(m.group(3)), m.group(4), m.group(5),
                               m.group(6) or ""))
    events.sort(key=lambda e: e[0])
    return events


def clock_offset(events, bench_tid, walls):
    """wall - perf, from the bench's getppid() markers (median)."""
    stamps = [e[0] for e in events if e[2] == bench_tid and e[3] == "getppid"]
    pairs = sorted(w - p for w, p in zip(walls, stamps))
    if not pairs or len(stamps) != len(walls):
        raise SystemExit(f"markers: {len(stamps)} in the trace, {len(walls)} made")
    return pairs[len(pairs) // 2]


def first(events, start, predicate):
    """The first event at or after `start` (perf seconds) that `predicate` accepts."""
    return next((e for e in events if e[0] >= start and predicate(e)), None)


def split_try(events, push, resumed, daemon, emulator):
    """The marks of one try (perf seconds), from the push on; missing marks are left out."""
    marks = {"push": push, "resumed": resumed}
    exec_of = lambda name: (lambda e: e[3] == "sched:sched_process_exec" and name in e[4])
    sh = first(events, push, exec_of('"/bin/sh"')) or first(events, push, exec_of("sh\""))
    front = first(events, push, exec_of("wcs-agent-push"))
    if not sh or not front:
        return marks
    marks["sh"], marks["front"] = sh[0], front[0]
    pid = front[2]
    # The front's last write carries the request (with `hello` in the same write since 2026-12-02,
    # after hello's own round trip before).
    sends = [e for e in events if e[0] >= front[0] and e[2] == pid and e[3] == "sendto"]
    if not sends:
        return marks
    marks["request_sent"] = sends[-1][0]
    steps = [("request_read", lambda e: e[2] in daemon and e[3] == "recvfrom"),
             ("connect", lambda e: e[2] in daemon and e[3] == "connect" and "addrlen: 16" in e[4]),
             ("upgrade_sent", lambda e: e[2] in daemon and e[3] == "sendto"),
             ("101_sent", lambda e: e[2] == emulator and e[3] == "sendto"),
             ("connection_sent", lambda e: e[2] in daemon and e[3] == "sendto"),
             ("reply_sent", lambda e: e[2] == emulator and e[3] == "sendto")]
    at = marks["request_sent"]
    for name, predicate in steps:
        hit = first(events, at, predicate)
        if hit is None or hit[0] > resumed:
            return marks
        marks[name], at = hit[0], hit[0]
    return marks


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_proc import loadavg, percentile
    from bench_rig import Agent, Rig
    from bench_wake import wake_once
    parser = argparse.ArgumentParser(description="A wake by `reconnect`, split by who spends it (perf trace).")
    parser.add_argument("--tries", type=int, default=30)
    parser.add_argument("--binary", default=None, help="wcs-agent to measure (default: .build-deb/release/wcs-agent)")
    args = parser.parse_args()
    rig = Rig(["1001"])
    trace = os.path.join(rig.work, "perf-trace.txt")
    perf = None
    try:
        agent = Agent(rig, "1001", binary=args.binary)
        link = os.path.join(rig.work, "wcs-agent-push")
        os.symlink(os.path.realpath(agent.bin), link)
        rig.control("POST", "/config", {"push_command": f"{link} reconnect --socket {agent.sock}"})
        daemon = {int(t) for t in os.listdir(f"/proc/{agent.proc.pid}/task")}
        perf = subprocess.Popen(["perf", "trace", "-a", "-T", "-o", trace, "-e",
                                 "execve,connect,sendto,recvfrom,getppid,sched:sched_process_exec"],
                                stderr=subprocess.DEVNULL)
        time.sleep(2)
        walls = [marker() for _ in range(5)]
        loads, tries = [loadavg()], []
        for _ in range(args.tries):
            call = rig.control("GET", f"/pushes?login={agent.login}")
            one = wake_once(rig, agent)
            pushed = [p for p in rig.control("GET", f"/pushes?login={agent.login}") if p not in call][0]["time"]
            tries.append((pushed, pushed + one["push_to_resumed"] / 1000))
        walls += [marker() for _ in range(5)]
        loads.append(loadavg())
        daemon |= {int(t) for t in os.listdir(f"/proc/{agent.proc.pid}/task")}
        time.sleep(1)
    finally:
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait(timeout=30)
        rig.stop()
    events = parse(trace)
    offset = clock_offset(events, os.getpid(), walls)
    emulator = rig.emulator.pid
    splits = [split_try(events, push - offset, resumed - offset, daemon, emulator) for push, resumed in tries]
    complete = [s for s in splits if all(mark in s for _, _, a, b in STEPS for mark in (a, b))]
    print(f"wake by `reconnect` over ws, split from the kernel's record (perf trace): {len(complete)} of "
          f"{len(splits)} tries complete; load {loads[0]:.1f} -> {loads[1]:.1f}; ms, p50 p95; trace: {trace}")
    for name, who, start, end in STEPS + [("push -> resumed", "all", "push", "resumed")]:
        values = [(s[end] - s[start]) * 1000 for s in complete]
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        print(f"  {name:<40} {who:<14} " + ("–" if p50 is None else f"{p50:7.2f} {p95:7.2f}"))
    for who in ("emulator", "sh", "front", "daemon"):
        values = [sum((s[b] - s[a]) * 1000 for _, w, a, b in STEPS if w.startswith(who)) for s in complete]
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        print(f"  sum: {who:<35} " + ("–" if p50 is None else f"{p50:7.2f} {p95:7.2f}"))


if __name__ == "__main__":
    main()
