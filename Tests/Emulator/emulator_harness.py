"""Test-side helpers shared by selftest.py and selftest_media.py: spawn the emulator, call its control
API, and speak the WCS protocol as a client."""
from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Callable, List, Optional, Tuple

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


class Emulator:
    """A running wcs_emulator.py child process (killed with SIGKILL by stop())."""

    def __init__(self, *args: str, ready_timeout: float = 20.0):
        self._log = tempfile.NamedTemporaryFile(prefix="wcs-emulator-", suffix=".log", delete=False)
        self.log_path = self._log.name
        self.process = subprocess.Popen([PYTHON, os.path.join(HERE, "wcs_emulator.py"), *args],
                                        stdout=subprocess.PIPE, stderr=self._log)
        line = self._read_line(ready_timeout)
        try:
            self.ready = json.loads(line)
        except ValueError:
            self.stop()
            raise RuntimeError(f"emulator did not get ready: {line!r}; log: {self.log()}") from None
        self.port = self.ready["port"]
        self.control_port = self.ready["control_port"]
        self.url = f"{self.ready['scheme']}://127.0.0.1:{self.port}"

    def _read_line(self, timeout: float) -> str:
        deadline, data = time.monotonic() + timeout, b""
        fd = self.process.stdout.fileno()
        while b"\n" not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace").strip()

    def log(self) -> str:
        """The emulator's stderr so far."""
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def stop(self) -> None:
        """SIGKILL and reap the child."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._log.close()

    def remove_log(self) -> None:
        """Deletes the log file (after a successful run) unless WCS_EMULATOR_KEEP_LOG is set."""
        if os.environ.get("WCS_EMULATOR_KEEP_LOG"):
            sys.stderr.write(f"emulator log kept: {self.log_path}\n")
            return
        try:
            os.unlink(self.log_path)
        except OSError:
            pass

    # -- control API -----------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Optional[dict] = None) -> Tuple[int, Any]:
        """One control request; returns (HTTP status, decoded JSON)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{self.control_port}{path}", data=data,
                                     method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def get(self, path: str) -> Any:
        status, answer = self.request("GET", path)
        assert status == 200, f"GET {path} -> {status} {answer}"
        return answer

    def post(self, path: str, body: Optional[dict] = None) -> Any:
        status, answer = self.request("POST", path, body or {})
        assert status == 200, f"POST {path} -> {status} {answer}"
        return answer

    async def aget(self, path: str) -> Any:
        return await asyncio.to_thread(self.get, path)

    async def apost(self, path: str, body: Optional[dict] = None) -> Any:
        return await asyncio.to_thread(self.post, path, body)


class Closed(Exception):
    """The server closed the socket while a frame was awaited."""

    def __init__(self, code: Optional[int]):
        super().__init__(f"socket closed (code {code})")
        self.code = code


class WcsClient:
    """A minimal WCS client: sends frames, answers pings (unless told not to), queues what arrives."""

    def __init__(self, url: str, auto_pong: bool = True, ssl_context=None):
        self.url = url
        self.ssl_context = ssl_context
        self.auto_pong = auto_pong
        self.ws = None
        self.frames: asyncio.Queue = asyncio.Queue()
        self.received: List[Tuple[str, list]] = []
        self.pings = 0
        self.close_code: Optional[int] = None
        self._reader: Optional[asyncio.Task] = None

    async def open(self) -> "WcsClient":
        self.ws = await websockets.connect(self.url, ping_interval=None, close_timeout=1,
                                           ssl=self.ssl_context)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if isinstance(message, bytes):
                    await self.frames.put(("<binary>", [message]))
                    continue
                try:
                    frame = json.loads(message)
                    name, data = frame["message"], frame["data"]
                except (ValueError, KeyError, TypeError):
                    await self.frames.put(("<raw>", [message]))
                    continue
                assert isinstance(data, list), f"server frame without data array: {message}"
                self.received.append((name, data))
                if name == "ping":
                    self.pings += 1
                    if self.auto_pong:
                        await self.send("pong", None)
                    continue
                await self.frames.put((name, data))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            await self.frames.put(("<closed>", [self.ws.close_code]))

    async def send(self, name: str, obj: Any) -> None:
        await self.ws.send(json.dumps({"message": name, "data": [obj]}))

    async def send_raw(self, payload) -> None:
        await self.ws.send(payload)

    async def expect(self, name: str, timeout: float = 5.0,
                     where: Optional[Callable[[list], bool]] = None) -> list:
        """Waits for the next frame called `name` (others are skipped); returns its data array."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {name}")
            try:
                got, data = await asyncio.wait_for(self.frames.get(), remaining)
            except asyncio.TimeoutError:
                raise AssertionError(f"timed out waiting for {name}") from None
            if got == "<closed>" and name != "<closed>":
                raise Closed(data[0])
            if got == name and (where is None or where(data)):
                return data

    async def next_frame(self, timeout: float = 5.0) -> Tuple[str, list]:
        """The next non-ping frame, whatever it is."""
        return await asyncio.wait_for(self.frames.get(), timeout)

    async def quiet(self, seconds: float) -> List[Tuple[str, list]]:
        """Collects every non-ping frame arriving within `seconds`."""
        got = []
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                got.append(await asyncio.wait_for(self.frames.get(), remaining))
            except asyncio.TimeoutError:
                break
        return got

    async def wait_closed(self, timeout: float = 5.0) -> Optional[int]:
        await self.expect("<closed>", timeout)
        return self.close_code

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader

    def abort(self) -> None:
        """Drops the TCP connection without a close frame."""
        self.ws.transport.abort()

    # -- protocol steps ----------------------------------------------------------------------------

    async def login(self, login: Optional[str], password: Optional[str] = None, keep_alive: bool = True,
                    register: bool = True, **extra: Any) -> dict:
        """Sends `connection` and returns getUserData's object (does not wait for `registered`)."""
        obj = {"appKey": "defaultApp", "mediaProviders": ["WebRTC"], "keepAlive": keep_alive,
               "clientVersion": "2.0", **extra}
        if login is not None:
            obj.update(sipLogin=login, sipAuthenticationName=login, sipPassword=password,
                       sipDomain="pbx.test", sipOutboundProxy="pbx.test", sipPort=5060,
                       sipRegisterRequired=register)
        await self.send("connection", obj)
        return (await self.expect("getUserData"))[0]

    async def resume(self, token: str) -> None:
        await self.send("connection", {"appKey": "defaultApp", "mediaProviders": ["WebRTC"],
                                       "keepAlive": True, "authToken": token, "clientVersion": "2.0"})


async def connect(url: str, auto_pong: bool = True, ssl_context=None) -> WcsClient:
    """An opened WcsClient (pass ssl_context for wss)."""
    return await WcsClient(url, auto_pong, ssl_context).open()


class Runner:
    """A tiny test runner: named async checks, one line per result, exit status 1 on any failure."""

    def __init__(self):
        self.failures = 0
        self.passed = 0

    async def run(self, name: str, check, timeout: float = 60.0) -> None:
        started = time.monotonic()
        try:
            await asyncio.wait_for(check(), timeout)
            self.passed += 1
            print(f"PASS {name} ({time.monotonic() - started:.2f} s)", flush=True)
        except Exception as error:  # report and continue with the next check
            self.failures += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)

    def summary(self, emulator: Emulator) -> int:
        """Prints the totals; on failure dumps the emulator's log to stderr, else deletes it.
        Returns the exit status."""
        print(f"{self.passed} passed, {self.failures} failed", flush=True)
        if self.failures:
            sys.stderr.write("---- emulator log ----\n" + emulator.log()[-20000:] + "\n")
            return 1
        emulator.remove_log()
        return 0
