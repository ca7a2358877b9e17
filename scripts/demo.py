#!/usr/bin/python3
"""make demo: the main job of wcs-agent on the WCS emulator, end to end.

Starts the emulator (a WCS look-alike with a simulated SIP side and a real WebRTC leg, aiortc) and
`wcs-agent run` with a temporary state dir, lets the agent log in, puts it to sleep (the server keeps
the session), has the emulator ring it: the push wakes the agent (`wcs-agent reconnect`), it resumes
the SAME server session by token, answers with a spoken greeting, records the caller (speech made
with espeak-ng) and the caller hangs up. Prints a summary: wake and answer latencies, seconds of
audio each way with a level check, the recordings, and the call record.
"""
import array
import math
import wave
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from emulator_client import control, stop_all, wait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"


def analyse(path):
    """Length in seconds, seconds of sound (20 ms frames above -45 dBFS) and their RMS in dBFS."""
    with wave.open(path) as w:
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    samples = array.array("h", frames)
    step = rate // 50
    active, energy = 0, 0.0
    for start in range(0, len(samples) - step + 1, step):
        frame = samples[start:start + step]
        power = sum(v * v for v in frame) / step
        if 20 * math.log10(max(math.sqrt(power), 1e-9) / 32768) > -45:
            active += 1
            energy += power
    level = 20 * math.log10(max(math.sqrt(energy / active), 1e-9) / 32768) if active else -120.0
    return len(samples) / rate, active * step / rate, level


def speak(text, path):
    subprocess.run(["espeak-ng", "-s", "150", "-w", path, text], check=True)
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


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
    caller_wav, greeting_wav = os.path.join(work, "caller.wav"), os.path.join(work, "greeting.wav")
    caller_seconds = speak("Hello, this is the front door. I have a parcel for you. Can you let me in, please?", caller_wav)
    speak("Hello, you have reached the door phone. Please leave your message after this greeting.", greeting_wav)
    procs = []
    try:
        emu = subprocess.Popen([PY, os.path.join(ROOT, "Tests/Emulator/wcs_emulator.py"), "--users-file", users,
                                "--media-source", "silence", "--record-dir", os.path.join(work, "emulator-recordings"),
                                "--push-command", f"{agent_bin} reconnect --socket {sock}"],
                               stdout=subprocess.PIPE, stderr=open(os.path.join(work, "emulator.log"), "w"), text=True)
        procs.append(emu)
        ready = json.loads(emu.stdout.readline())
        url, cport = f"{ready['scheme']}://127.0.0.1:{ready['port']}", ready["control_port"]
        print(f"emulator     {url} (control 127.0.0.1:{cport})")

        agent = subprocess.Popen([agent_bin, "run", "--server", url, "--sip-login", "1001", "--sip-password-file", pwfile,
                                  "--state-dir", state, "--socket", sock, "--log-level", "info",
                                  "--answer", "auto", "--audio-source", "file:" + greeting_wav,
                                  "--audio-sink", "record:" + os.path.join(work, "recordings"),
                                  "--media-address", "127.0.0.1"],
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
        ring = control(cport, "POST", "/ring", {"login": "1001", "caller": "2000", "display_name": "Front door",
                                                "source": "file:" + caller_wav})
        print(f"SIP side     INVITE from Front door <2000>: call {ring['callId']} (push sent: {ring.get('pushed')})")
        times = {}
        while "first_audio" not in times:
            event = json.loads(events.stdout.readline())
            now = (time.monotonic() - t_ring) * 1000
            kind = event["type"]
            if kind == "resumed":
                times.setdefault("resumed", now)
            elif kind == "incoming_call" and event["call_id"] == ring["callId"]:
                times.setdefault("incoming", now)
                print(f"agent        incoming call from {event.get('display_name')} <{event.get('caller')}>, answering")
            elif kind == "media" and event.get("step") == "first_audio":
                times["first_audio"] = now
                times["answer_to_audio"] = event.get("latency_ms")
            elif kind == "media_failed":
                raise SystemExit(f"demo: media failed: {event}")
        same = status()["session_id"] == session_id
        print(f"agent        resumed by token {times['resumed']:.1f} ms after the INVITE (same server session: {same})")
        print(f"media        first caller audio decoded {times['first_audio']:.1f} ms after the INVITE; "
              f"the caller speaks for {caller_seconds:.1f} s")
        time.sleep(caller_seconds + 0.7)
        control(cport, "POST", "/hangup", {"callId": ring["callId"]})
        record = None
        while record is None:
            event = json.loads(events.stdout.readline())
            if event["type"] == "call_ended" and event["call_id"] == ring["callId"]:
                record = event
        theirs = control(cport, "GET", f"/calls?callId={ring['callId']}")[0]["media"]
        mine_len, mine_s, mine_db = analyse(record["recording"])
        theirs_len, theirs_s, theirs_db = analyse(theirs["recording"])
        stats = record.get("stats", {})
        print("\nsummary")
        print(f"  INVITE -> resumed by token         {times['resumed']:8.1f} ms  (push -> wcs-agent reconnect)")
        print(f"  INVITE -> ringing at the agent     {times['incoming']:8.1f} ms")
        print(f"  answer -> first caller frame       {times['answer_to_audio']:8} ms")
        print(f"  INVITE -> first caller frame       {times['first_audio']:8.1f} ms")
        print(f"  caller -> agent audio              {mine_s:8.1f} s of sound in {mine_len:.1f} s, {mine_db:6.1f} dBFS")
        print(f"  agent -> caller audio              {theirs_s:8.1f} s of sound in {theirs_len:.1f} s, {theirs_db:6.1f} dBFS")
        print(f"  agent's recording                  {record['recording']}")
        print(f"  caller's recording                 {theirs['recording']}")
        history = subprocess.run([agent_bin, "history", "--json", "--state-dir", state], capture_output=True, text=True)
        journal = [json.loads(line) for line in history.stdout.splitlines() if line.strip()]
        entry = next((r for r in journal if r.get("call_id") == ring["callId"]), None)
        print(f"  call record (calls.jsonl)          {json.dumps(entry, sort_keys=True) if entry else 'MISSING'}")
        print(f"  logs                               {work}/agent.log, {work}/emulator.log")
        ok = same and mine_s >= 2 and theirs_s >= 2 and mine_db > -35 and theirs_db > -35 and entry is not None
        print(f"  level check                        {'PASS' if ok else 'FAIL'}")
        if not ok:
            raise SystemExit(1)
    finally:
        stop_all(procs)


if __name__ == "__main__":
    main()
