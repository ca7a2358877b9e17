"""Helpers shared by scripts/demo.py and scripts/bench.py: the emulator's control API and polling."""
import json
import signal
import subprocess
import time
import urllib.request


def control(port, method, path, body=None):
    """One request to the WCS emulator's HTTP control API on 127.0.0.1; returns the JSON answer."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def wait(what, predicate, timeout=20.0):
    """Polls `predicate` until it returns a true value (returned); exits with a message on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception:
            pass
        time.sleep(0.01)
    raise SystemExit(f"timed out waiting for {what}")


def stop_all(procs):
    """SIGTERM every still-running process, newest first; SIGKILL what does not exit in 5 s."""
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
