"""Self-tests of the emulator's honesty about undeliverable calls and of the variants a sleeping
client meets (README "Server variants": session_id, resume_token once, restart_sessions); run by
selftest.py. Each check switches its variant on with POST /config and back afterwards.
"""
from __future__ import annotations

import asyncio

from emulator_harness import connect

DEFAULTS = {"session_id": "send", "resume_token": "same", "restart_sessions": "forget",
            "connection_delay": 0.0}


class DeafChecks:
    """Borrows logins and helpers from selftest.Checks (`base`)."""

    def __init__(self, base):
        self.base = base
        self.emu = base.emu

    async def _with(self, settings: dict, check) -> None:
        await self.emu.apost("/config", settings)
        try:
            await check()
        finally:
            await self.emu.apost("/config", {k: DEFAULTS.get(k) for k in settings})

    async def _undeliverable(self, login: str) -> dict:
        return await self.emu.aget(f"/undeliverable?login={login}")

    async def undeliverable_calls_say_why(self):
        # no session at all
        nobody, _ = self.base.user()
        ring = await self.emu.apost("/ring", {"login": nobody})
        assert ring["state"] == "failed" and ring["undeliverable"] == "no_session", ring
        # a session, not registered (wrong password)
        unregistered, _ = self.base.user()
        client = await connect(self.emu.url)
        await client.login(unregistered, "wrong")
        await client.expect("fail")
        ring = await self.emu.apost("/ring", {"login": unregistered})
        assert ring["undeliverable"] == "not_registered", ring
        await client.close()
        # delivered: not listed; pushed and the caller gives up before a client comes back: never_announced
        client, login, data = await self.base.registered_client()
        delivered = await self.emu.apost("/ring", {"login": login, "ring_timeout": 0.2})
        await client.expect("notifyIncomingCall")
        client.abort()
        await self.base.detached(login)
        missed = await self.emu.apost("/ring", {"login": login, "ring_timeout": 0.2})
        assert missed["pushed"] and missed["undeliverable"] is None, missed
        await asyncio.sleep(0.5)
        view = await self._undeliverable(login)
        assert [c["callId"] for c in view["calls"]] == [missed["callId"]], view
        assert view["calls"][0]["reason"] == "never_announced" and view["by_reason"]["never_announced"] == 1, view
        assert delivered["callId"] not in [c["callId"] for c in view["calls"]]
        # pushed, resumed, replayed: delivered
        replayed = await self.emu.apost("/ring", {"login": login})
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        await again.expect("notifyIncomingCall")
        await self.emu.apost("/hangup", {"callId": replayed["callId"]})
        assert (await self._undeliverable(login))["count"] == 1
        await again.close()
        total = await self.emu.aget("/undeliverable")
        assert total["count"] >= 3 and total["by_reason"]["no_session"] >= 1, total

    async def undeliverable_push_failed(self):
        async def check():
            client, login, _ = await self.base.registered_client()
            client.abort()
            await self.base.detached(login)
            ring = await self.emu.apost("/ring", {"login": login})
            assert ring["pushed"], ring
            for _ in range(40):
                view = await self._undeliverable(login)
                if view["count"]:
                    break
                await asyncio.sleep(0.05)
            assert view["count"] == 1 and view["calls"][0]["reason"] == "push_failed", view
            await self.emu.apost("/hangup", {"callId": ring["callId"]})
            assert (await self._undeliverable(login))["count"] == 1, "counted twice"
        settings = await self.emu.aget("/config")
        await self.emu.apost("/config", {"push_command": "exit 3"})
        try:
            await check()
        finally:
            await self.emu.apost("/config", {"push_command": settings["push_command"]})

    async def session_id_omitted(self):
        async def check():
            client, login, data = await self.base.registered_client()
            assert "sessionId" not in data and data["sipLogin"] == login, data
            client.abort()
            await self.base.detached(login)
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            resumed = (await again.expect("getUserData"))[0]
            assert "sessionId" not in resumed and resumed["authToken"] == data["authToken"], resumed
            await again.close()
        await self._with({"session_id": "omit"}, check)

    async def token_valid_once(self):
        async def check():
            client, login, data = await self.base.registered_client()
            client.abort()
            await self.base.detached(login)
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            second = (await again.expect("getUserData"))[0]["authToken"]
            assert second != data["authToken"], "not rotated"
            again.abort()
            await self.base.detached(login)
            stale = await connect(self.emu.url)
            await stale.resume(data["authToken"])
            await stale.expect("fail")
            # spent on presentation: a resume whose socket dies before the answer still spends it
            await self.emu.apost("/config", {"connection_delay": 0.5})
            lost = await connect(self.emu.url)
            await lost.resume(second)
            lost.abort()
            await asyncio.sleep(0.7)
            await self.emu.apost("/config", {"connection_delay": 0.0})
            dead = await connect(self.emu.url)
            await dead.resume(second)
            await dead.expect("fail")
            session = (await self.emu.aget(f"/sessions?login={login}"))[0]
            assert session["registered"] and session["token"] not in (second, data["authToken"]), session
        await self._with({"resume_token": "once"}, check)

    async def restart_keeps_or_forgets_sessions(self):
        async def check():
            client, login, data = await self.base.registered_client()
            answer = await self.emu.apost("/restart", {})
            assert answer["sessions"] == "keep" and answer["kept"] >= 1, answer
            assert await client.wait_closed() in (1012, 1002), client.close_code
            session = (await self.emu.aget(f"/sessions?login={login}"))[0]
            assert session["registered"] and not session["connected"], session
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            assert (await again.expect("getUserData"))[0]["authToken"] == data["authToken"]
            again.abort()
            await self.base.detached(login)
            # while nobody is connected; the request overrides the setting
            answer = await self.emu.apost("/restart", {"sessions": "forget"})
            assert answer["sessions"] == "forget" and answer["kept"] == 0, answer
            assert await self.emu.aget(f"/sessions?login={login}") == []
            ring = await self.emu.apost("/ring", {"login": login})
            assert ring["undeliverable"] == "no_session", ring
            gone = await connect(self.emu.url)
            await gone.resume(data["authToken"])
            await gone.expect("fail")
        await self._with({"restart_sessions": "keep"}, check)

    async def bad_variant_values_refused(self):
        for bad in ({"session_id": "maybe"}, {"resume_token": "twice"}, {"restart_sessions": "some"}):
            status, _ = await asyncio.to_thread(self.emu.request, "POST", "/config", bad)
            assert status == 400, bad
        status, _ = await asyncio.to_thread(self.emu.request, "POST", "/restart", {"sessions": "x"})
        assert status == 400
