#!/usr/bin/python3
"""make fleet N=100: N agents against one emulator, a server restart, and how the fleet comes back.

Starts the WCS emulator (--media fixed: signaling only) and N `wcs-agent run` processes, one SIP line
each (own login, password file, state dir and control socket), waits until every agent's session is
connected and registered, then runs two rounds:

1. restart: POST /restart (every session lost, sockets closed with 1012);
2. restart + push: the same, and `wcs-agent reconnect` (what a push handler runs) for one agent that is
   not back yet, `--push-after` seconds into the spread; that agent's wake time is measured;
3. agents restart with stale tokens: every agent stops (SIGTERM; its token stays on disk), the server
   restarts (every session lost), and all N agents start again at once (a building's power comes back):
   each token is refused, and each agent logs in after its start jitter, not the reconnect spread.

It does that once per reconnect spread in `--spreads` (default "0,default": the table before the spread,
W = 0, and after it, the agent's default W), each with a fresh emulator and fresh agents.

Per round it prints, from the emulator's attempt log (GET /attempts) and /sessions: the time until all
N are online again, the peak connection attempts in any one second, attempts per agent (max, mean),
the total attempts by kind, and the span over which they came. Before the rounds it measures the
agents' memory (RSS sum and PSS sum) and one agent's normal wake time (sleep, then reconnect).
"Online" is the emulator's view: a connected, registered session for the login. With the default W it
also checks issue 11's goal for N agents (peak under N/5 attempts per second, every agent back within
W + 5 s, at most 2 attempts each; for N=100 that is the issue's "under 20").

Usage: scripts/fleet.py AGENT_BIN [-n N] [--spreads 0,default] [--rounds both|push]
       [--agent-config-extra TEXT] [--max-cps N] [--json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from emulator_client import control, stop_all
from fleet_agents import Fleet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def online_logins(cport):
    """Logins with a connected, registered session, mapped to that session's creation time."""
    return {s["login"]: s["created"] for s in control(cport, "GET", "/sessions")
            if s["connected"] and s["registered"]}


def wait_all_online(cport, logins, timeout, since=0.0):
    """Polls until every login is online with a session created after `since`; returns {login: created}."""
    deadline = time.monotonic() + timeout
    while True:
        online = {k: v for k, v in online_logins(cport).items() if v >= since}
        if all(login in online for login in logins):
            return online
        if time.monotonic() > deadline:
            missing = sorted(set(logins) - set(online))
            raise SystemExit(f"{len(missing)} agents not online after {timeout} s: {missing[:10]}")
        time.sleep(0.05)


def stale_restart_round(fleet, cport, url, procs, timeout):
    """Every agent stops, the server forgets every session, every agent starts again at once."""
    for agent in fleet.agents:
        agent.process.terminate()
    for agent in fleet.agents:
        agent.process.wait(15)
    control(cport, "POST", "/restart", {"sessions": "forget"})
    t0 = time.time()
    procs += fleet.start(url)
    online = wait_all_online(cport, fleet.logins, timeout, since=t0)
    return round_figures(fleet, cport, t0, online)


def restart_round(fleet, cport, timeout, push_after=None):
    """One server restart; returns the round's figures (and the pushed agent's wake time)."""
    t0 = control(cport, "POST", "/restart")["time"]
    pushed = None
    if push_after is not None:
        time.sleep(push_after)
        online = online_logins(cport)
        pushed = next((a for a in fleet.agents if online.get(a.login, 0) < t0), None)
        if pushed is not None:
            pushed_at = time.time()
            fleet.reconnect(pushed)
    online = wait_all_online(cport, fleet.logins, timeout, since=t0)
    figures = round_figures(fleet, cport, t0, online)
    if push_after is not None:
        figures["push: agent online after (s)"] = (
            round(online[pushed.login] - pushed_at, 3) if pushed is not None else "all were back")
    return figures


def round_figures(fleet, cport, t0, online):
    """A round's figures from the attempt log since `t0` and the sessions online."""
    time.sleep(0.5)  # late attempts (e.g. a second socket) still count
    log = control(cport, "GET", f"/attempts?since={t0}&log=0")
    per_agent = [log["per_login"].get(login, 0) for login in fleet.logins]
    figures = {
        "all online after (s)": round(max(online.values()) - t0, 2),
        "peak attempts per second": log["peak_per_second"],
        "attempts per agent, max": max(per_agent),
        "attempts per agent, mean": round(sum(per_agent) / len(per_agent), 2),
        "connection attempts": log["total"],
        "attempts by kind": ", ".join(f"{n} {k}" for k, n in sorted(log["by_kind"].items())),
        "refused with 1013": log["refused"],
        "attempts spread over (s)": round((log["last"] or t0) - (log["first"] or t0), 2),
        "peak logins per second": peak_per_second([a["time"] for a in control(
            cport, "GET", f"/attempts?since={t0}")["attempts"] if a["kind"] == "login"]),
    }
    return figures


def peak_per_second(times):
    """The most of `times` (seconds) inside any one-second window."""
    ordered, first, peak = sorted(times), 0, 0
    for last, moment in enumerate(ordered):
        while moment - ordered[first] >= 1.0:
            first += 1
        peak = max(peak, last - first + 1)
    return peak


#: The agent's default reconnect spread W in seconds (ReconnectSpread.defaultWindow, docs/config.md).
DEFAULT_SPREAD = 60.0
#: Agents restarted with stale tokens are all online within this many seconds of their start: the start
#: jitter (5 s, ReconnectSchedule.startJitterLimit) plus the time N processes take to start on one host.
STALE_START_GOAL = 15.0


def run_fleet(args, spread, work):
    """One fleet (fresh emulator, N fresh agents) with reconnect spread `spread` ("default" or seconds)."""
    extra = args.agent_config_extra
    if spread != "default":
        extra = f"reconnect_spread = {spread}\n{extra}"
    window = DEFAULT_SPREAD if spread == "default" else float(spread)
    timeout = max(args.timeout, window + 30)
    os.makedirs(work, mode=0o700)
    procs = []
    try:
        fleet = Fleet(os.path.abspath(args.agent), work, args.n, extra)
        emu = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "Tests/Emulator/wcs_emulator.py"),
                                "--media", "fixed", "--users-file", fleet.users_file,
                                "--max-connections-per-second", str(args.max_cps)],
                               stdout=subprocess.PIPE, stderr=open(os.path.join(work, "emulator.log"), "w"),
                               text=True)
        procs.append(emu)
        ready = json.loads(emu.stdout.readline())
        cport = ready["control_port"]
        url = f"ws://127.0.0.1:{ready['port']}"
        procs += fleet.start(url)
        wait_all_online(cport, fleet.logins, args.timeout)
        time.sleep(1)
        memory = fleet.memory_mb()
        wake = fleet.normal_wake(cport, control)
        time.sleep(1)  # let the woken agent settle before the restart
        rounds = {}
        if args.rounds == "both":
            rounds["restart"] = restart_round(fleet, cport, timeout)
        rounds["restart + push"] = restart_round(fleet, cport, timeout, push_after=args.push_after)
        if args.rounds in ("both", "stale"):
            rounds["agents restart, stale tokens"] = stale_restart_round(fleet, cport, url, procs, timeout)
        dead = [a.login for a in fleet.agents if a.process.poll() is not None]
    finally:
        stop_all(procs)
    result = {"agents": args.n, "reconnect spread W (s)": window,
              "agent config": extra.strip() or "(defaults)",
              "agents' RSS sum (MB)": round(memory[0], 1), "agents' PSS sum (MB)": round(memory[1], 1),
              "normal wake: reconnect -> resumed (s)": round(wake, 3), "rounds": rounds, "agents exited early": dead}
    result["goal"] = goal_check(result) if spread == "default" else None
    return result


def goal_check(result):
    """Issue 11's goal: failures, [] when met. The peak goal (under 20 attempts per second for 100 agents)
    scales as N/5 from 100 agents up; below that a single second with 2 agents would miss it, so smaller
    fleets are held to the other goals only (Tests/Fleet/small_fleet_test.py computes their peak bound)."""
    n, window = result["agents"], result["reconnect spread W (s)"]
    failures = []
    for name, figures in result["rounds"].items():
        if name == "agents restart, stale tokens":
            # Not the spread's goal: the agents' own start, a login after the start jitter (at most 5 s).
            if figures["all online after (s)"] > STALE_START_GOAL:
                failures.append(f"{name}: all online after {figures['all online after (s)']} s (goal {STALE_START_GOAL:g} s)")
            if figures["attempts per agent, max"] > 2:
                failures.append(f"{name}: an agent made {figures['attempts per agent, max']} attempts (goal at most 2)")
            continue
        if n >= 100 and figures["peak attempts per second"] >= n / 5:
            failures.append(f"{name}: peak {figures['peak attempts per second']} attempts/s (goal under {n / 5:g})")
        if figures["all online after (s)"] > window + 5:
            failures.append(f"{name}: all online after {figures['all online after (s)']} s (goal W + 5 = {window + 5:g})")
        if figures["attempts per agent, max"] > 2:
            failures.append(f"{name}: an agent made {figures['attempts per agent, max']} attempts (goal at most 2)")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("agent", help="the wcs-agent binary")
    parser.add_argument("-n", type=int, default=100, help="number of agents (default 100)")
    parser.add_argument("--spreads", default="0,default",
                        help="comma-separated reconnect spreads W to run, seconds or 'default' (default: 0,default)")
    parser.add_argument("--rounds", choices=["both", "push", "stale"], default="both",
                        help="every round (restart, restart + push, agents restart with stale tokens), only the "
                             "push round, or the push and the stale-token rounds")
    parser.add_argument("--agent-config-extra", default="",
                        help="extra lines for each agent's [agent] config section")
    parser.add_argument("--max-cps", type=int, default=0, help="emulator admission limit (0 = none)")
    parser.add_argument("--push-after", type=float, default=0.3,
                        help="seconds after the restart at which one agent gets its push")
    parser.add_argument("--timeout", type=float, default=120, help="seconds allowed to come back (at least W + 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="wcs-fleet-")
    results = [run_fleet(args, spread.strip(), os.path.join(work, f"spread-{spread.strip()}"))
               for spread in args.spreads.split(",")]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print_table(results)
    sys.stdout.flush()
    print(f"(logs in {work})", file=sys.stderr)


def print_table(results):
    """Prints the figures as one Markdown table: a column per fleet and restart round."""
    columns = [(r, name) for r in results for name in r["rounds"]]
    print(f"fleet: {results[0]['agents']} agents; agent config per column\n")
    print("| figure | " + " | ".join(f"W = {r['reconnect spread W (s)']:g} s: {name}" for r, name in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    keys = list(dict.fromkeys(k for r, name in columns for k in r["rounds"][name]))
    for key in keys:
        print(f"| {key} | " + " | ".join(str(r["rounds"][name].get(key, "")) for r, name in columns) + " |")
    for key in ("agents' RSS sum (MB)", "agents' PSS sum (MB)", "normal wake: reconnect -> resumed (s)"):
        print(f"| {key} | " + " | ".join(str(r[key]) if name == list(r["rounds"])[0] else "" for r, name in columns) + " |")
    for r in results:
        if r["agents exited early"]:
            print(f"\nW = {r['reconnect spread W (s)']:g} s: agents that exited early: {r['agents exited early']}")
        if r["goal"] is not None:
            verdict = "met" if not r["goal"] else "NOT met: " + "; ".join(r["goal"])
            peak = f"peak under {r['agents'] / 5:g} attempts/s, " if r["agents"] >= 100 else ""
            print(f"\ngoal (N = {r['agents']}, default W = {r['reconnect spread W (s)']:g} s): {peak}"
                  f"all back within W + 5 s, at most 2 attempts per agent: {verdict}")


if __name__ == "__main__":
    main()
