"""Wake latencies of a sleeping agent, for `make bench` (tries in a row; the caller takes percentiles).

One try: the agent sleeps (`wcs-agent sleep`; the server keeps the session), the emulator rings it
(its aiortc leg plays a tone), the push runs `wcs-agent reconnect`, the agent resumes by token,
answers automatically and decodes the caller's first frame; then the caller hangs up.

- push -> session resumed: from the emulator's push time (GET /pushes: `time.time()` when it sends
  the push) to the agent's own record of having the session back: the `resumed` event's `time_us`
  (the agent's wall clock, µs, stamped when the resume is confirmed; same machine, same clock);
- push -> session resumed at the bench (`push_to_resumed_relay`, the figure before 2026-12-01's
  fourth session): to the arrival of that event here, through the agent's event socket, a
  `wcs-agent events --json` process and its pipe, which adds 1-5 ms of the bench's own;
- push -> first audio: to that call's `media` event with step `first_audio`: its `time_us` (the
  agent's wall clock when the audio thread decoded the first frame); the old figure, the event's
  arrival here (before 2026-12-02's fifth session), is kept as `push_to_first_audio_relay`;
- offer -> first decoded audio: that event's own `latency_ms` (the agent starts timing when it
  takes the offer in hand to answer);
- `reconnect` wall time: `wcs-agent reconnect` run by hand while asleep, exit to exit.

Two push paths: the emulator runs `wcs-agent reconnect` (push_command: a process per push, what a
push handler script does), or it POSTs the push to the agent's own webhook (`[push] listen`, with
the shared secret as a push relay would send it; no process at all): `webhook_tries`.
`tls_wake`: the `reconnect` tries over wss:// (an emulator with a self-signed P-256 certificate for
127.0.0.1, an agent that trusts it): the TLS handshake on every wake, resumed from the last session.
"""
import os
import re
import time

WEBHOOK_SECRET = "bench-push-secret-0123456789"


def webhook_config(work):
    """The agent config lines of a push webhook on a free loopback port (secret in a 0600 file)."""
    path = os.path.join(work, "push-secret")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(WEBHOOK_SECRET + "\n")
    return f"[push]\nlisten = 127.0.0.1:0\nsecret_file = {path}\n"


def webhook_url(agent, timeout=10.0):
    """The agent's webhook URL, from its log line `push webhook listening on http://...`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(os.path.join(agent.base, "agent.log"), errors="replace") as f:
            found = re.search(r"push webhook listening on (http://\S+)", f.read())
        if found:
            return found.group(1)
        time.sleep(0.05)
    raise TimeoutError("the agent's push webhook did not start")


def wake_once(rig, agent):
    """One try; returns {push_to_resumed, push_to_first_audio, offer_to_first_audio} in ms."""
    agent.sleep()
    agent.events.drain()
    ring = rig.control("POST", "/ring", {"login": agent.login, "caller": "2000", "source": "tone:440"})
    call_id = ring["callId"]
    resumed, resumed_event = agent.events.next(lambda e: e.get("type") == "resumed")
    first, event = agent.events.next(lambda e: e.get("type") == "media" and e.get("step") == "first_audio"
                                     and e.get("call_id") == call_id)
    pushes = [p for p in rig.control("GET", f"/pushes?login={agent.login}") if p.get("callId") == call_id]
    pushed = pushes[0]["time"]
    rig.control("POST", "/hangup", {"callId": call_id})
    agent.events.next(lambda e: e.get("type") == "call_ended" and e.get("call_id") == call_id)
    back = resumed_event.get("time_us")  # absent from agents before 2026-12-01's fourth session
    decoded = event.get("time_us")  # absent before 2026-12-02's fifth session
    return {"push_to_resumed": (back / 1e6 - pushed) * 1000 if back is not None else None,
            "push_to_resumed_relay": (resumed - pushed) * 1000,
            "push_to_first_audio": (decoded / 1e6 - pushed) * 1000 if decoded is not None else (first - pushed) * 1000,
            "push_to_first_audio_relay": (first - pushed) * 1000, "offer_to_first_audio": event.get("latency_ms")}


def wake_tries(rig, agent, tries, webhook=False):
    """`tries` wake tries; returns lists of the three figures (failed tries are counted and skipped).
    webhook: the emulator POSTs pushes to the agent's webhook (started with `webhook_config`)
    instead of running `wcs-agent reconnect`."""
    if webhook:
        rig.control("POST", "/config", {"push_command": None, "push_url": webhook_url(agent),
                                        "push_headers": {"X-WCS-Push-Secret": WEBHOOK_SECRET}})
    else:
        rig.control("POST", "/config", {"push_url": None, "push_headers": None})
        rig.set_push_target(agent)
    result = {"push_to_resumed": [], "push_to_resumed_relay": [], "push_to_first_audio": [],
              "push_to_first_audio_relay": [], "offer_to_first_audio": [], "failed": 0}
    for _ in range(tries):
        try:
            one = wake_once(rig, agent)
        except (TimeoutError, RuntimeError, IndexError) as error:
            result["failed"] += 1
            result.setdefault("errors", []).append(str(error))
            time.sleep(1)
            continue
        for key, value in one.items():
            if value is not None:
                result[key].append(value)
    return result


def tls_files():
    """(certificate, key): a new self-signed P-256 certificate for 127.0.0.1 in a temporary directory."""
    import subprocess
    import tempfile
    certs = tempfile.mkdtemp(prefix="wcs-bench-tls-")
    cert, key = os.path.join(certs, "cert.pem"), os.path.join(certs, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def tls_wake(tries, binary=None):
    """`tries` wake tries by `reconnect` over wss:// and `reconnect` wall times, on a rig of its own."""
    from bench_rig import Agent, Rig
    cert, key = tls_files()
    rig = Rig(["1001"], emulator_args=["--tls-cert", cert, "--tls-key", key])
    try:
        agent = Agent(rig, "1001", extra_args=["--ca-file", cert], binary=binary)
        time.sleep(1)
        result = wake_tries(rig, agent, tries)
        result["reconnect"] = reconnect_times(agent, tries)
    finally:
        rig.stop()
    return result


def reconnect_times(agent, tries):
    """Wall time of `wcs-agent reconnect` on a sleeping agent, `tries` times (ms)."""
    times = []
    for _ in range(tries):
        agent.sleep()
        times.append(agent.command("reconnect"))
        agent.events.drain()
    return times


# --- Standalone: `python3 scripts/bench_wake.py [--tries N] [--trace]` ------------------------------
# The wake part of `make bench` alone (release build, one agent, one emulator), with p50/p95. With
# --trace the agent runs at log level debug and each try is cut into stages from the two logs'
# timestamps (ms resolution, wall clock, same machine): see STAGES.

STAGES = [  # (name, log, regular expression of the first line after the push that marks it)
    ("request at the agent", "agent", r"agent: resuming the server session by token"),  # after the intake
    ("lws connect started", "agent", r"transport: connecting to "),
    ("WebSocket open", "agent", r"transport: WebSocket to .* open after"),
    ("server resumed", "emulator", r"sessions: .* resumed session "),
    ("getUserData at the agent", "agent", r"session: ← getUserData"),
    ("resume returned", "agent", r"session: resumed session .* by token"),
]


def _log_times(path, kind, day):
    """(epoch seconds, text) for each timestamped line of an agent or emulator log."""
    import calendar
    out = []
    if kind == "agent":
        pattern = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z (.*)$")
    else:
        pattern = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) (.*)$")
    with open(path, errors="replace") as f:
        for line in f:
            m = pattern.match(line.rstrip("\n"))
            if not m:
                continue
            g = m.groups()
            if kind == "agent":
                t = calendar.timegm((int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]))) + int(g[6]) / 1000
            else:
                t = day + int(g[0]) * 3600 + int(g[1]) * 60 + int(g[2]) + int(g[3]) / 1000
            out.append((t, g[-1]))
    return out


def stage_breakdown(rig, agent, pushes):
    """[{stage: ms after the push}] per try, from the agent's and the emulator's logs."""
    day = (int(pushes[0]) // 86400) * 86400 if pushes else 0
    logs = {"agent": _log_times(os.path.join(rig.work, f"agent-{agent.login}", "agent.log"), "agent", day),
            "emulator": _log_times(os.path.join(rig.work, "emulator.log"), "emulator", day)}
    tries = []
    for pushed in pushes:
        one = {}
        for name, kind, expression in STAGES:
            pattern = re.compile(expression)
            # Both logs have ms resolution: a line in the push's own millisecond counts.
            hit = next((t for t, text in logs[kind] if t >= pushed - 0.001 and pattern.search(text)), None)
            if hit is not None:
                one[name] = (hit - pushed) * 1000
        tries.append(one)
    return tries


def main():
    import argparse
    from bench_proc import percentile
    from bench_rig import Agent, Rig
    parser = argparse.ArgumentParser(description="Wake latencies of a sleeping wcs-agent (release build).")
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--trace", action="store_true", help="agent at log level debug; stages from the logs")
    parser.add_argument("--binary", default=None, help="wcs-agent to measure (default: .build/release/wcs-agent)")
    parser.add_argument("--webhook", action="store_true", help="pushes go to the agent's webhook, not `reconnect`")
    parser.add_argument("--tls", action="store_true", help="wss:// (a self-signed P-256 certificate for 127.0.0.1)")
    args = parser.parse_args()
    tls_args, agent_args = [], ["--log-level", "debug"] if args.trace else []
    if args.tls:
        cert, key = tls_files()
        tls_args, agent_args = ["--tls-cert", cert, "--tls-key", key], agent_args + ["--ca-file", cert]
    rig = Rig(["1001"], emulator_args=tls_args)
    try:
        agent = Agent(rig, "1001", extra_args=agent_args, binary=args.binary, config_extra=webhook_config(rig.work))
        time.sleep(1)
        result = wake_tries(rig, agent, args.tries, webhook=args.webhook)
        result["reconnect"] = reconnect_times(agent, args.tries)
        pushes = sorted(p["time"] for p in rig.control("GET", f"/pushes?login={agent.login}"))
        stages = stage_breakdown(rig, agent, pushes) if args.trace else []
    finally:
        rig.stop()

    def row(name, values):
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        text = "–" if p50 is None else f"{p50:7.1f} {p95:7.1f}"
        print(f"  {name:<32} {text}   (n={len(values)})")
    print(f"wake by {'webhook' if args.webhook else '`reconnect`'} over {rig.url.split(':')[0]}, {args.tries} tries, failed {result['failed']}; "
          f"ms, p50 p95; logs: {rig.work}")
    row("push -> session resumed", result["push_to_resumed"])
    row("  (at the bench, event relay)", result["push_to_resumed_relay"])
    row("push -> first audio", result["push_to_first_audio"])
    row("  (at the bench, event relay)", result["push_to_first_audio_relay"])
    row("offer -> first audio", result["offer_to_first_audio"])
    row("reconnect wall time", result["reconnect"])
    if args.trace:
        # The transport's own figure: connect() to the upgrade done (TCP + TLS + HTTP), µs resolution.
        with open(os.path.join(rig.work, f"agent-{agent.login}", "agent.log"), errors="replace") as f:
            opens = re.findall(r"transport: WebSocket to \S+ open after ([0-9.]+) ms( \(TLS session resumed\))?", f.read())
        row("connect -> WebSocket open", [float(ms) for ms, _ in opens])
        if args.tls:
            resumed = [float(ms) for ms, hit in opens if hit]
            print(f"  TLS handshakes: {len(resumed)} resumed, {len(opens) - len(resumed)} full")
            row("  of which resumed", resumed)
    if stages:
        # Each try's stages, then the bench's own arrival of `resumed` (same order as the pushes).
        for one, back, relay in zip(stages, *([result["push_to_resumed"], result["push_to_resumed_relay"]]
                                              if not result["failed"] else [[], []])):
            one["resumed (agent's time_us)"], one["resumed event at the bench"] = back, relay
        names = [name for name, _, _ in STAGES] + ["resumed (agent's time_us)", "resumed event at the bench"]
        print("stages, ms after the push (log timestamps, ms resolution):")
        for name in names:
            row(name, [one[name] for one in stages if name in one])
        print("steps, ms from the stage before (per try):")
        for before, after in zip(["push"] + names, names):
            row(f"-> {after}", [one[after] - one.get(before, 0) for one in stages
                                if after in one and (before == "push" or before in one)])
        row("agent: request -> resume returned", [one["resume returned"] - one["request at the agent"]
                                                  for one in stages if "resume returned" in one
                                                  and "request at the agent" in one])


if __name__ == "__main__":
    main()
