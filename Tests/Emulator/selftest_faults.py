"""Self-tests of the fault switches and node down/up (wcsemu/faults.py, wcsemu/listener.py, README
"Faults"), and of the token ledger (`--name`, GET /tokens); run by selftest.py with their own
named emulator. Each check turns a fault on, plays the client side, and sees it fire once.
"""
from __future__ import annotations

import asyncio
import socket
import time

import websockets

from emulator_harness import Closed, Emulator, connect

LOGIN, PASSWORD = "3001", "fault-pw"


class FaultChecks:
    def __init__(self, emu: Emulator):
        self.emu = emu

    async def _fired(self, name: str) -> int:
        return (await self.emu.aget("/faults"))["fired"].get(name, {}).get("count", 0)

    async def upgrade_refused_with_retry_after(self):
        await self.emu.apost("/faults", {"upgrade_refuse_next": 1, "upgrade_retry_after": 7})
        try:
            await connect(self.emu.url)
            raise AssertionError("the upgrade was not refused")
        except websockets.InvalidStatusCode as error:
            assert error.status_code == 503, error
            assert error.headers.get("Retry-After") == "7", dict(error.headers)
        client = await connect(self.emu.url)  # only one was refused
        await client.close()
        assert await self._fired("upgrade_refused") == 1

    async def close_1013_before_the_session(self):
        await self.emu.apost("/faults", {"close_1013_next": 1})
        client = await connect(self.emu.url)
        await client.send("connection", {"sipLogin": LOGIN, "sipPassword": PASSWORD})
        assert await client.wait_closed() == 1013
        client = await connect(self.emu.url)
        await client.login(LOGIN, PASSWORD)
        await client.expect("registered")
        await client.close()
        assert await self._fired("closed_1013") == 1

    async def registrar_fails_then_silent_then_answers(self):
        await self.emu.apost("/faults", {"registrar_fail_next": 1, "registrar_silent_next": 1})
        silent = await connect(self.emu.url)
        await silent.login(LOGIN, PASSWORD)
        assert not [f for f in await silent.quiet(0.5) if f[0] in ("registered", "fail")], "registrar answered"
        await silent.close()
        failed = await connect(self.emu.url)
        await failed.login(LOGIN, PASSWORD)
        fail = (await failed.expect("fail"))[0]
        assert fail["apiMethod"] == "RegistrationStatusEvent" and fail["status"] == "CONNECTION_ERROR", fail
        await failed.close()
        fine = await connect(self.emu.url)
        await fine.login(LOGIN, PASSWORD)
        await fine.expect("registered")
        await fine.close()
        assert await self._fired("registrar_silent") == 1 and await self._fired("registrar_failed") == 1

    async def handshake_stall_then_resume(self):
        await self.emu.apost("/faults", {"handshake_stall": True})
        try:
            with socket.create_connection(("127.0.0.1", self.emu.port), timeout=2) as raw:  # TCP connects
                raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                raw.settimeout(0.7)
                try:
                    data = raw.recv(100)
                    raise AssertionError(f"the stalled node answered: {data!r}")
                except socket.timeout:
                    pass
        finally:
            await self.emu.apost("/faults", {"handshake_stall": False})
        client = await connect(self.emu.url)
        await client.close()

    async def down_refuses_and_drops_then_up_resumes(self):
        client = await connect(self.emu.url)
        data = await client.login(LOGIN, PASSWORD)
        await client.expect("registered")
        await self.emu.apost("/down", {})
        assert await client.wait_closed() in (1006, None), "not dropped without a close frame"
        try:
            socket.create_connection(("127.0.0.1", self.emu.port), timeout=1).close()
            raise AssertionError("a down node accepted TCP")
        except ConnectionRefusedError:
            pass
        await self.emu.apost("/up", {})
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        assert (await again.expect("getUserData"))[0]["sessionId"] == data["sessionId"]
        await again.close()
        await self.emu.apost("/down", {"forget": True})
        await self.emu.apost("/up", {})
        lost = await connect(self.emu.url)
        await lost.resume(data["authToken"])
        await lost.expect("fail")
        await lost.close()

    async def tokens_of_another_node_are_counted(self):
        before = await self.emu.aget("/tokens")
        client = await connect(self.emu.url)
        data = await client.login(LOGIN, PASSWORD)
        assert data["authToken"].startswith("faultnode."), data["authToken"]
        await client.close()
        for token in (data["authToken"], "othernode.0123", "faultnode.dead"):
            c = await connect(self.emu.url)
            await c.resume(token)
            await c.next_frame()
            await c.close()
        after = await self.emu.aget("/tokens")
        assert after["name"] == "faultnode"
        assert after["known"] - before["known"] == 1 and after["foreign"] - before["foreign"] == 1, after
        assert after["own_unknown"] - before["own_unknown"] == 1, after

    async def bad_fault_values_are_refused(self):
        for body in ({"upgrade_refuse_next": -1}, {"nope": 1}, {"handshake_stall": "yes"},
                     {"upgrade_retry_after": "soon"}):
            status, answer = await asyncio.to_thread(self.emu.request, "POST", "/faults", body)
            assert status == 400 and "error" in answer, (body, status, answer)


async def fault_checks(runner) -> None:
    emulator = Emulator("--media", "fixed", "--name", "faultnode", "--user", f"{LOGIN}:{PASSWORD}")
    checks = FaultChecks(emulator)
    try:
        for name in [n for n in FaultChecks.__dict__ if not n.startswith("_")]:
            await runner.run(f"fault_{name}", getattr(checks, name))
    finally:
        emulator.stop()
        emulator.remove_log()
