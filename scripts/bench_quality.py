"""PESQ-WB of the caller's speech as the agent records it, clean and through the emulator's
impairment layer, and the aiortc 1.4 answerer's figures; for `make bench`."""
import json
import os
import subprocess
import time

import bench_peer
from bench_pesq import make_speech
from bench_proc import rss_mb, sample
from bench_rig import PY, ROOT

IMPAIRMENT = "loss=5,jitter=30,seed=1"


def speech_score(rig, agent, venv_python, reference, seconds, impair):
    """One call of `reference` speech from the caller to `agent` (which records); its PESQ-WB."""
    rig.control("POST", "/config", {"impair": impair})
    agent.events.drain()
    try:
        ring = rig.control("POST", "/ring", {"login": agent.login, "caller": "2000", "source": f"file:{reference}"})
        agent.events.next(lambda e: e.get("type") == "media" and e.get("step") == "first_audio")
        time.sleep(2 * seconds + 1.5)  # the caller loops the speech: hold one whole repetition
        rig.control("POST", "/hangup", {"callId": ring["callId"]})
        _, ended = agent.events.next(lambda e: e.get("type") == "call_ended" and e.get("call_id") == ring["callId"])
    finally:
        rig.control("POST", "/config", {"impair": None})
    out = subprocess.run([venv_python, os.path.join(ROOT, "scripts/bench_pesq.py"), reference, ended["recording"]],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def pesq_figures(rig, agent, venv_python):
    """{"clean": {...}, "impaired": {...}} PESQ-WB results (each {"pesq_wb", "delay_ms"})."""
    reference, seconds = make_speech(rig.work, venv_python)
    return {"clean": speech_score(rig, agent, venv_python, reference, seconds, None),
            "impaired": speech_score(rig, agent, venv_python, reference, seconds, IMPAIRMENT)}


class AiortcAnswerer:
    """scripts/bench_aiortc_answerer.py logged in as `login` (the comparison peer)."""

    def __init__(self, rig, login):
        self.login = login
        self.proc = subprocess.Popen([PY, os.path.join(ROOT, "scripts/bench_aiortc_answerer.py"), rig.url, login,
                                      rig.password_file], stdout=subprocess.PIPE, text=True,
                                     stderr=open(os.path.join(rig.work, "aiortc-answerer.log"), "w"))
        rig.procs.append(self.proc)
        line = self.proc.stdout.readline()
        if '"ready"' not in line:
            raise RuntimeError(f"aiortc answerer did not log in: {line!r}")

    def next_first_audio(self):
        for line in self.proc.stdout:
            event = json.loads(line)
            if event.get("event") == "first_audio":
                return event["ms"]
        raise RuntimeError("aiortc answerer ended")


def aiortc_figures(rig, peer, tries, seconds):
    """Idle RSS, CPU and RSS in one call, offer -> first decoded audio (median of `tries` calls)."""
    answerer = AiortcAnswerer(rig, "1002")
    time.sleep(1)
    idle_cpu, _, _ = sample([answerer.proc.pid], 3)
    result = {"idle_rss": rss_mb(answerer.proc.pid), "idle_cpu": idle_cpu[answerer.proc.pid], "first_audio": []}
    for attempt in range(tries):
        pid, call_id = bench_peer.call_client(rig, peer, answerer.login)
        result["first_audio"].append(answerer.next_first_audio())
        if attempt == tries - 1:
            time.sleep(2)
            per, machine, load = sample([answerer.proc.pid], seconds)
            result.update(call_cpu=per[answerer.proc.pid], call_rss=rss_mb(answerer.proc.pid),
                          machine_busy=machine, load=load)
        rig.control("POST", "/hangup", {"callId": call_id})
        peer.close(pid)
        time.sleep(0.3)
    return result
