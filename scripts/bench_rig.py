"""The processes `make bench` measures: the WCS emulator, wcs-agent daemons and their event streams.

Everything runs on 127.0.0.1 in a private temporary directory; passwords go through 0600 files.
`Rig.stop()` ends every process it started (SIGTERM, then SIGKILL).
"""
import json
import os
import queue
import subprocess
import tempfile
import threading
import time

from emulator_client import control, stop_all, wait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
PASSWORD = "bench"


def bin_dir():
    """Where the measured binaries are: $WCS_BENCH_BIN, else the build `make bench-build` makes: the
    release build with the Swift runtime linked in (--static-swift-stdlib), as `make deb` ships it,
    in the same scratch path (.build-deb). WCS_BENCH_BIN=.build/release measures the dynamic build."""
    return os.path.abspath(os.environ.get("WCS_BENCH_BIN") or os.path.join(ROOT, ".build-deb/release"))


def agent_binary():
    """The wcs-agent the bench measures: $WCS_BENCH_AGENT when set, else the one in bin_dir()."""
    return os.environ.get("WCS_BENCH_AGENT") or os.path.join(bin_dir(), "wcs-agent")


def peer_binary():
    """The wcs-bench-peer of the far ends: $WCS_BENCH_PEER when set, else the one in bin_dir()."""
    return os.environ.get("WCS_BENCH_PEER") or os.path.join(bin_dir(), "wcs-bench-peer")


def swift_runtime(binary):
    """How `binary` has the Swift runtime: "static" (linked in) or "dynamic" (libswiftCore.so)."""
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    return "dynamic" if "libswiftCore" in out else "static"


def private_file(path, text):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    return path


class EventStream:
    """`wcs-agent events --json` read on a thread; each event is stamped with time.time() on arrival."""

    def __init__(self, agent_bin, sock, procs):
        self.proc = subprocess.Popen([agent_bin, "events", "--json", "--socket", sock],
                                     stdout=subprocess.PIPE, text=True)
        procs.append(self.proc)
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.events.put((time.time(), json.loads(line)))
            except ValueError:
                continue

    def drain(self):
        while not self.events.empty():
            self.events.get_nowait()

    def next(self, predicate, timeout=20.0):
        """The first (arrival time, event) for which predicate(event) holds; raises on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no matching agent event")
            try:
                stamp, event = self.events.get(timeout=remaining)
            except queue.Empty:
                continue
            if event.get("type") == "media_failed":
                raise RuntimeError(f"agent media failed: {event}")
            if predicate(event):
                return stamp, event


class Agent:
    """One `wcs-agent run` (auto answer, tone source) logged in to the emulator as `login`."""

    def __init__(self, rig, login, sink="null", max_calls=64, extra_args=(), binary=None, config_extra=""):
        self.rig, self.login = rig, login
        self.bin = binary or agent_binary()
        base = os.path.join(rig.work, f"agent-{login}")
        os.makedirs(base)
        self.sock = os.path.join(base, "control.sock")
        self.base = base
        config = private_file(os.path.join(base, "agent.conf"), f"[calls]\nmax_calls = {max_calls}\n{config_extra}")
        self.proc = subprocess.Popen(
            [self.bin, "run", "--config", config, "--server", rig.url, "--sip-login", login,
             "--sip-password-file", rig.password_file, "--state-dir", os.path.join(base, "state"),
             "--socket", self.sock, "--answer", "auto", "--audio-source", "tone:880", "--audio-sink", sink,
             "--media-address", "127.0.0.1", *extra_args],
            stderr=open(os.path.join(base, "agent.log"), "w"))
        rig.procs.append(self.proc)
        wait(f"agent {login} online", lambda: self.status().get("state") == "online", timeout=60)
        self.events = EventStream(self.bin, self.sock, rig.procs)
        time.sleep(0.3)

    def status(self):
        out = subprocess.run([self.bin, "status", "--json", "--socket", self.sock], capture_output=True, text=True)
        return json.loads(out.stdout) if out.returncode == 0 else {}

    def command(self, *args):
        """Runs `wcs-agent ARGS --socket S`; returns its wall time in ms (raises on failure)."""
        t0 = time.monotonic()
        subprocess.run([self.bin, *args, "--socket", self.sock], check=True, capture_output=True)
        return (time.monotonic() - t0) * 1000

    def sleep(self):
        """`wcs-agent sleep`, then waits until the emulator sees the socket gone."""
        self.command("sleep")
        wait("agent detached", lambda: not self.rig.session(self.login)["connected"])


class Rig:
    """The emulator (aiortc media; pushes run `wcs-agent reconnect`, see set_push_target) and the
    processes around it."""

    def __init__(self, users, impair=None, emulator_args=()):
        self.work = tempfile.mkdtemp(prefix="wcs-bench-")
        self.procs = []
        self.password_file = private_file(os.path.join(self.work, "pw"), PASSWORD + "\n")
        users_file = private_file(os.path.join(self.work, "users"), "".join(f"{u}:{PASSWORD}\n" for u in users))
        args = [PY, os.path.join(ROOT, "Tests/Emulator/wcs_emulator.py"), "--users-file", users_file,
                "--media-source", "tone:440", "--record-dir", os.path.join(self.work, "emulator-rec"),
                "--ring-timeout", "60", "--ice-timeout", "30"]
        emu = subprocess.Popen(args + (["--impair", impair] if impair else []) + list(emulator_args), stdout=subprocess.PIPE,
                               stderr=open(os.path.join(self.work, "emulator.log"), "w"), text=True)
        self.procs.append(emu)
        self.emulator = emu
        ready = json.loads(emu.stdout.readline())
        self.url, self.cport = f"{ready.get('scheme', 'ws')}://127.0.0.1:{ready['port']}", ready["control_port"]

    def set_push_target(self, agent):
        """Pushes run `wcs-agent reconnect` against this agent's control socket."""
        self.control("POST", "/config", {"push_command": f"{agent.bin} reconnect --socket {agent.sock}"})

    def control(self, method, path, body=None):
        return control(self.cport, method, path, body)

    def session(self, login):
        return self.control("GET", f"/sessions?login={login}")[-1]

    def stop(self):
        stop_all(self.procs)
