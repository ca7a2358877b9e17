#!/usr/bin/python3
"""make bench: figures of the release build, printed as a table (never asserted in tests).

- wake: push -> `wcs-agent reconnect` -> resumed, and push -> first decoded caller frame, for a call
  to a sleeping agent that answers automatically (emulator with aiortc on loopback);
- answer -> first decoded caller frame (the agent's own measure);
- the agent's RSS and CPU idle, and during one call;
- Opus encode/decode cost per frame and a two-party in-process loopback call (wcs-bench).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from emulator_client import control, stop_all, wait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def sample(pid, seconds):
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - c0) / (time.monotonic() - t0), rss_mb(pid)


def main():
    agent_bin = os.path.join(ROOT, ".build/release/wcs-agent")
    bench_bin = os.path.join(ROOT, ".build/release/wcs-bench")
    work = tempfile.mkdtemp(prefix="wcs-bench-")
    sock, users, pw = (os.path.join(work, n) for n in ("control.sock", "users", "pw"))
    for path, text in ((users, "1001:bench\n"), (pw, "bench\n")):
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(text)
    procs = []
    rows = []
    try:
        emu = subprocess.Popen([sys.executable if sys.executable.startswith("/usr/bin") else "/usr/bin/python3",
                                os.path.join(ROOT, "Tests/Emulator/wcs_emulator.py"), "--users-file", users,
                                "--media-source", "tone:440", "--record-dir", work,
                                "--push-command", f"{agent_bin} reconnect --socket {sock}"],
                               stdout=subprocess.PIPE, stderr=open(os.path.join(work, "emulator.log"), "w"), text=True)
        procs.append(emu)
        ready = json.loads(emu.stdout.readline())
        cport = ready["control_port"]
        agent = subprocess.Popen([agent_bin, "run", "--server", f"ws://127.0.0.1:{ready['port']}", "--sip-login", "1001",
                                  "--sip-password-file", pw, "--state-dir", os.path.join(work, "state"), "--socket", sock,
                                  "--answer", "auto", "--audio-source", "tone:880", "--audio-sink", "null",
                                  "--media-address", "127.0.0.1"], stderr=open(os.path.join(work, "agent.log"), "w"))
        procs.append(agent)

        def status():
            out = subprocess.run([agent_bin, "status", "--json", "--socket", sock], capture_output=True, text=True)
            return json.loads(out.stdout) if out.returncode == 0 else {}

        wait("login", lambda: status().get("state") == "online")
        time.sleep(1)
        idle_cpu, idle_rss = sample(agent.pid, 5)
        rows.append(("agent idle: CPU (% of one core)", f"{idle_cpu:.2f}", "target < 1 %"))
        rows.append(("agent idle: RSS (MB)", f"{idle_rss:.1f}", "target < 15 MB"))

        subprocess.run([agent_bin, "sleep", "--socket", sock], check=True, capture_output=True)
        wait("detach", lambda: not control(cport, "GET", "/sessions")[0]["connected"])
        events = subprocess.Popen([agent_bin, "events", "--json", "--socket", sock], stdout=subprocess.PIPE, text=True)
        procs.append(events)
        time.sleep(0.3)
        t0 = time.monotonic()
        ring = control(cport, "POST", "/ring", {"login": "1001", "caller": "2000", "source": "tone:440"})
        times = {}
        while "first_audio" not in times:
            event = json.loads(events.stdout.readline())
            now = (time.monotonic() - t0) * 1000
            kind = event.get("type")
            if kind == "resumed":
                times.setdefault("resumed", now)
            elif kind == "incoming_call":
                times.setdefault("incoming", now)
            elif kind == "media" and event.get("step") == "first_audio":
                times["first_audio"] = now
                times["answer_to_first_audio"] = event.get("latency_ms")
        rows.append(("INVITE+push -> session resumed (ms)", f"{times['resumed']:.1f}", ""))
        rows.append(("INVITE+push -> call ringing at agent (ms)", f"{times['incoming']:.1f}", ""))
        rows.append(("INVITE+push -> first decoded caller frame (ms)", f"{times['first_audio']:.1f}", "target < 150 ms"))
        rows.append(("answer -> first decoded caller frame (ms)", f"{times['answer_to_first_audio']}", ""))
        call_cpu, call_rss = sample(agent.pid, 5)
        rows.append(("agent in a call: CPU (% of one core)", f"{call_cpu:.2f}", "target < 1 %"))
        rows.append(("agent in a call: RSS (MB)", f"{call_rss:.1f}", ""))
        control(cport, "POST", "/hangup", {"callId": ring["callId"]})
    finally:
        stop_all(procs)
    media = json.loads(subprocess.run([bench_bin], capture_output=True, text=True, check=True).stdout)
    rows.append(("Opus encode per 20 ms frame (us)", f"{media['opus_encode_us_per_frame']}", ""))
    rows.append(("Opus decode per 20 ms frame (us)", f"{media['opus_decode_us_per_frame']}", ""))
    if "loopback_call_cpu_percent_of_one_core_two_parties" in media:
        rows.append(("in-process loopback call, both parties: CPU (%)",
                     f"{media['loopback_call_cpu_percent_of_one_core_two_parties']}", ""))
        rows.append(("in-process loopback: answer -> first audio (ms)", f"{media.get('loopback_answer_to_first_audio_ms')}", ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'value':>10}  note")
    for name, value, note in rows:
        print(f"{name.ljust(width)}  {value:>10}  {note}")


if __name__ == "__main__":
    main()
