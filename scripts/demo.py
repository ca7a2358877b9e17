#!/usr/bin/python3
"""make demo: the main job of wcs-agent on the WCS emulator, end to end.

Starts the emulator (a WCS look-alike with a simulated SIP side) and `wcs-agent run` with a
temporary state dir, lets the agent log in, puts it to sleep (the server keeps the session), has
the emulator ring it: the push wakes the agent (`wcs-agent reconnect`), it resumes the SAME server
session by token and the ringing call reaches it. Prints a summary with the measured latencies.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"


def control(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def wait(what, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception:
            pass
        time.sleep(0.02)
    raise SystemExit(f"demo: timed out waiting for {what}")


def main():
    agent_bin = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/wcs-agent")
    work = tempfile.mkdtemp(prefix="wcs-demo-")
    sock = os.path.join(work, "control.sock")
    state = os.path.join(work, "state")
    users = os.path.join(work, "users")
    pwfile = os.path.join(work, "sip-password")
    for path, text in ((users, "1001:demo-secret\n"), (pwfile, "demo-secret\n")):
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(text)
    procs = []
    try:
        emu = subprocess.Popen([PY, os.path.join(ROOT, "Tests/Emulator/wcs_emulator.py"), "--users-file", users,
                                "--media", "fixed", "--push-command", f"{agent_bin} reconnect --socket {sock}"],
                               stdout=subprocess.PIPE, stderr=open(os.path.join(work, "emulator.log"), "w"), text=True)
        procs.append(emu)
        ready = json.loads(emu.stdout.readline())
        url, cport = f"{ready['scheme']}://127.0.0.1:{ready['port']}", ready["control_port"]
        print(f"emulator     {url} (control 127.0.0.1:{cport})")

        agent = subprocess.Popen([agent_bin, "run", "--server", url, "--sip-login", "1001", "--sip-password-file", pwfile,
                                  "--state-dir", state, "--socket", sock, "--log-level", "info"],
                                 stderr=open(os.path.join(work, "agent.log"), "w"))
        procs.append(agent)

        def status():
            out = subprocess.run([agent_bin, "status", "--json", "--socket", sock], capture_output=True, text=True)
            return json.loads(out.stdout) if out.returncode == 0 else None

        t0 = time.monotonic()
        wait("login", lambda: (status() or {}).get("state") == "online")
        login_ms = (time.monotonic() - t0) * 1000
        session_id = status()["session_id"]
        print(f"agent        online and registered, session {session_id} ({login_ms:.0f} ms)")

        subprocess.run([agent_bin, "sleep", "--socket", sock], check=True, capture_output=True)
        wait("detach", lambda: not control(cport, "GET", "/sessions")[0]["connected"])
        print("agent        asleep; the server keeps the session and its SIP registration")

        events = subprocess.Popen([agent_bin, "events", "--json", "--socket", sock], stdout=subprocess.PIPE, text=True)
        procs.append(events)
        time.sleep(0.2)
        t_ring = time.monotonic()
        ring = control(cport, "POST", "/ring", {"login": "1001", "caller": "2000", "display_name": "Front door"})
        print(f"SIP side     INVITE from Front door <2000>: call {ring['callId']} (push sent: {ring.get('pushed')})")
        resumed_ms = incoming_ms = None
        while incoming_ms is None:
            event = json.loads(events.stdout.readline())
            now = (time.monotonic() - t_ring) * 1000
            if event["type"] == "resumed" and resumed_ms is None:
                resumed_ms = now
            if event["type"] == "incoming_call" and event["call_id"] == ring["callId"]:
                incoming_ms = now
        same = status()["session_id"] == session_id
        print(f"agent        woke by push, resumed by token in {resumed_ms:.1f} ms (same server session: {same})")
        print(f"agent        incoming call {ring['callId']} from {event.get('display_name')} <{event.get('caller')}> "
              f"{incoming_ms:.1f} ms after the INVITE")
        control(cport, "POST", "/hangup", {"callId": ring["callId"]})
        print("\nsummary")
        print(f"  login                {login_ms:8.1f} ms")
        print(f"  INVITE -> resumed    {resumed_ms:8.1f} ms  (push -> wcs-agent reconnect -> token resume)")
        print(f"  INVITE -> ringing    {incoming_ms:8.1f} ms")
        print(f"  same session         {same}")
        print(f"  pushes sent          {len(control(cport, 'GET', '/pushes'))}")
        print(f"  logs                 {work}/agent.log, {work}/emulator.log")
        if not same:
            raise SystemExit("demo: the agent did not come back to the same session")
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    main()
