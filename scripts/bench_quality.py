"""PESQ-WB of the caller's speech as the agent records it, clean and through the emulator's
impairment layer, and the aiortc 1.4 answerer's figures; for `make bench`."""
import json
import os
import subprocess
import time

import bench_peer
from bench_pesq import make_speech
from bench_proc import rss_mb, sample
from bench_replay import replayed_figures
from bench_rig import PY, ROOT, bin_dir

IMPAIRMENT = "loss=5,jitter=30,seed=1"


def speech_score(rig, agent, venv_python, reference, seconds, impair, opus_fec="off"):
    """One call of `reference` speech from the caller to `agent` (which records); its PESQ-WB and the
    agent's receive counters for the call (frames decoded, concealed, rebuilt from FEC)."""
    rig.control("POST", "/config", {"impair": impair, "opus_fec": opus_fec})
    agent.events.drain()
    try:
        ring = rig.control("POST", "/ring", {"login": agent.login, "caller": "2000", "source": f"file:{reference}"})
        agent.events.next(lambda e: e.get("type") == "media" and e.get("step") == "first_audio")
        time.sleep(2 * seconds + 1.5)  # the caller loops the speech: hold one whole repetition
        rig.control("POST", "/hangup", {"callId": ring["callId"]})
        _, ended = agent.events.next(lambda e: e.get("type") == "call_ended" and e.get("call_id") == ring["callId"])
    finally:
        rig.control("POST", "/config", {"impair": None, "opus_fec": "off"})
    out = subprocess.run([venv_python, os.path.join(ROOT, "scripts/bench_pesq.py"), reference, ended["recording"]],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    stats = ended.get("stats") or {}
    result["receive"] = {key: stats.get(key) for key in
                         ("packets_received", "packets_lost", "frames_decoded", "concealed_frames", "fec_recovered_frames")}
    return result


def pesq_figures(rig, agent, venv_python):
    """PESQ-WB results (each {"pesq_wb", "delay_ms", "receive"}): "clean"; "impaired" with the
    emulator's aiortc caller as it is (no in-band FEC: only concealment can help); "impaired_fec"
    with the caller sending in-band FEC the way libwebrtc does (`--opus-fec webrtc`); "replayed":
    the same impairment replayed on a virtual clock through the agent's receive path
    (bench_replay.py: deterministic, not moved by the machine's load)."""
    reference, seconds = make_speech(rig.work, venv_python)
    return {"clean": speech_score(rig, agent, venv_python, reference, seconds, None),
            "impaired": speech_score(rig, agent, venv_python, reference, seconds, IMPAIRMENT),
            "impaired_fec": speech_score(rig, agent, venv_python, reference, seconds, IMPAIRMENT, "webrtc"),
            "replayed": replayed_figures(os.path.join(bin_dir(), "wcs-quality-replay"), reference, venv_python,
                                         quick=os.environ.get("QUICK", "") not in ("", "0"))}


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


if __name__ == "__main__":
    # PESQ only (for tuning the receive path): `python3 scripts/bench_quality.py` after `make bench-build`.
    from bench_pesq import ensure_venv
    from bench_rig import Agent, Rig
    rig = Rig(["1003"])
    try:
        venv = ensure_venv(os.path.join(ROOT, ".build/bench-venv"))
        recorder = Agent(rig, "1003", sink="record:" + os.path.join(rig.work, "recordings"))
        print(json.dumps(pesq_figures(rig, recorder, venv), indent=1))
        print(f"logs: {rig.work}")
    finally:
        rig.stop()
