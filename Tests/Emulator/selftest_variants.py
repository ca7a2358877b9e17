"""Self-tests of the server variants (README "Server variants"); run by selftest.py.

Each check switches one variant on with POST /config, plays the client side, and switches it back.
"""
from __future__ import annotations

import asyncio
import time

from emulator_harness import Closed, Emulator, connect

VARIANT_DEFAULTS = {"resume_registered": "no", "resume_token": "same", "registered_order": "after",
                    "resume_drop_ms": None, "resume_drop_count": 0, "detached_finish": "silent",
                    "connection_delay": 0.0, "ice_lite": False, "bad_token": "fail",
                    "detached_calls": "keep"}


class VariantChecks:
    """Borrows logins and helpers from selftest.Checks (`base`)."""

    def __init__(self, base):
        self.base = base
        self.emu: Emulator = base.emu

    async def _with(self, settings: dict, check) -> None:
        await self.emu.apost("/config", settings)
        try:
            await check()
        finally:
            await self.emu.apost("/config", {k: VARIANT_DEFAULTS[k] for k in settings})

    async def _detached_session(self):
        """A registered keepAlive session whose socket was just dropped: (login, getUserData)."""
        client, login, data = await self.base.registered_client()
        client.abort()
        await self.base.detached(login)
        return login, data

    async def defaults_are_standard(self):
        config = await self.emu.aget("/config")
        assert {k: config[k] for k in VARIANT_DEFAULTS} == VARIANT_DEFAULTS, config
        # and without any variant flag, login and resume are exactly the standard exchange
        client, login, data = await self.base.registered_client()
        client.abort()
        await asyncio.sleep(0.1)
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        resumed = (await again.expect("getUserData"))[0]
        assert resumed["authToken"] == data["authToken"], resumed
        assert await again.quiet(0.3) == [], "more than getUserData on a plain resume"
        await again.close()

    async def bad_config_values_refused(self):
        for bad in ({"resume_token": "sometimes"}, {"resume_drop_ms": -1}, {"connection_delay": "x"},
                    {"resume_drop_count": 1.5}, {"ice_lite": "maybe"}, {"bad_token": "ignore"}):
            status, _ = await asyncio.to_thread(self.emu.request, "POST", "/config", bad)
            assert status == 400, bad

    async def resume_registered_yes(self):
        async def check():
            login, data = await self._detached_session()
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            names = [(await again.next_frame())[0] for _ in range(2)]
            assert names == ["getUserData", "registered"], names
            await again.close()
            unregistered_login, _ = self.base.user()
            plain = await connect(self.emu.url)
            token = (await plain.login(unregistered_login, "wrong"))["authToken"]
            await plain.expect("fail")
            plain.abort()
            await asyncio.sleep(0.1)
            back = await connect(self.emu.url)
            await back.resume(token)
            await back.expect("getUserData")
            assert not [f for f in await back.quiet(0.3) if f[0] == "registered"], "unregistered got registered"
            await back.close()
        await self._with({"resume_registered": "yes"}, check)

    async def resume_token_rotates(self):
        async def check():
            login, data = await self._detached_session()
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            resumed = (await again.expect("getUserData"))[0]
            assert resumed["authToken"] != data["authToken"] and len(resumed["authToken"]) == 32, resumed
            same = ("sessionId", "sipLogin", "sipDomain", "sipAuthenticationName", "sipRegisterRequired")
            assert all(resumed[k] == data[k] for k in same), (resumed, data)
            session = (await self.emu.aget(f"/sessions?login={login}"))[0]
            assert session["token"] == resumed["authToken"] and session["registered"], session
            again.abort()
            await asyncio.sleep(0.1)
            stale = await connect(self.emu.url)
            await stale.resume(data["authToken"])
            assert (await stale.expect("fail"))[0]["info"] == "Session not found"
            await stale.wait_closed()
            fresh = await connect(self.emu.url)
            await fresh.resume(resumed["authToken"])
            assert (await fresh.expect("getUserData"))[0]["sessionId"] == data["sessionId"]
            await fresh.close()
        await self._with({"resume_token": "rotate"}, check)

    async def registered_before_user_data(self):
        async def check():
            login, password = self.base.user()
            client = await connect(self.emu.url)
            await client.send("connection", {"sipLogin": login, "sipPassword": password,
                                             "sipRegisterRequired": True, "keepAlive": True})
            names = [(await client.next_frame())[0] for _ in range(2)]
            assert names == ["registered", "getUserData"], names
            token = client.received[-1][1][0]["authToken"]
            client.abort()
            await asyncio.sleep(0.1)
            again = await connect(self.emu.url)
            await again.resume(token)
            names = [(await again.next_frame())[0] for _ in range(2)]
            assert names == ["registered", "getUserData"], names
            await again.close()
            refused = await connect(self.emu.url)
            await refused.send("connection", {"sipLogin": login, "sipPassword": "wrong",
                                              "sipRegisterRequired": True})
            names = [(await refused.next_frame())[0] for _ in range(2)]
            assert names == ["fail", "getUserData"], names
            await refused.close()
        await self._with({"registered_order": "before", "resume_registered": "yes"}, check)

    async def resume_drop_after_user_data(self):
        async def check():
            login, data = await self._detached_session()
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            await again.expect("getUserData")
            got_at = time.monotonic()
            assert await again.wait_closed(3) == 1006, again.close_code
            assert time.monotonic() - got_at >= 0.1, "dropped before the delay"
            await asyncio.sleep(0.1)
            session = (await self.emu.aget(f"/sessions?login={login}"))[0]
            assert not session["connected"] and session["registered"], session
            second = await connect(self.emu.url)  # the count was 1: this resume is kept
            await second.resume(data["authToken"])
            await second.expect("getUserData")
            assert await second.quiet(0.5) == [], "second resume was dropped"
            await second.close()
        await self._with({"resume_drop_ms": 150, "resume_drop_count": 1}, check)

    async def resume_drop_immediately_every_time(self):
        async def check():
            login, data = await self._detached_session()
            for _ in range(2):
                again = await connect(self.emu.url)
                await again.resume(data["authToken"])
                await again.expect("getUserData")
                assert await again.wait_closed(3) == 1006, again.close_code
        await self._with({"resume_drop_ms": 0, "resume_drop_count": 0}, check)

    async def detached_finish_silent_by_default(self):
        client, login, data = await self.base.registered_client()
        ring = await self.emu.apost("/ring", {"login": login})
        await client.expect("ring")
        await client.send("answer", {"callId": ring["callId"], "sdp": self.base.client_answer})
        await client.expect("talk")
        client.abort()
        await self.base.detached(login)
        await self.emu.apost("/hangup", {"callId": ring["callId"]})
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        await again.expect("getUserData")
        assert await again.quiet(0.4) == [], "finish delivered although silent"
        await again.close()

    async def detached_finish_replayed(self):
        async def check():
            client, login, data = await self.base.registered_client()
            answered = await self.emu.apost("/ring", {"login": login})
            await client.expect("ring")
            await client.send("answer", {"callId": answered["callId"], "sdp": self.base.client_answer})
            await client.expect("talk")
            client.abort()
            await self.base.detached(login)
            await self.emu.apost("/hangup", {"callId": answered["callId"]})
            missed = await self.emu.apost("/ring", {"login": login, "ring_timeout": 0.2})
            assert missed["pushed"], missed
            ringing = await self.emu.apost("/ring", {"login": login})
            await asyncio.sleep(0.5)
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            frames = [await again.next_frame() for _ in range(6)]
            names = [name for name, _ in frames]
            assert names == ["getUserData", "finish", "finish", "setRemoteSDP", "notifyIncomingCall",
                             "ring"], names
            finished = {d[0]["callId"]: d[0] for name, d in frames if name == "finish"}
            assert set(finished) == {answered["callId"], missed["callId"]}, finished
            assert all(f["status"] == "FINISH" and f["info"] == "Normal call clearing"
                       for f in finished.values()), finished
            assert frames[3][1][0] == ringing["callId"]
            again.abort()
            await asyncio.sleep(0.2)
            third = await connect(self.emu.url)  # replayed once only
            await third.resume(data["authToken"])
            await third.expect("getUserData")
            assert [n for n, _ in await third.quiet(0.3) if n == "finish"] == []
            await third.close()
        await self._with({"detached_finish": "replay"}, check)

    async def detached_calls_end_replayed(self):
        async def check():
            client, login, data = await self.base.registered_client()
            await client.send("call", {"callId": "c-var-end", "callee": "3010",
                                       "sdp": self.base.client_offer})
            await client.expect("talk")
            client.abort()
            await self.base.detached(login)
            call = (await self.emu.aget("/calls?callId=c-var-end"))[0]
            assert call["end_reason"] == "socket_lost", call
            again = await connect(self.emu.url)
            await again.resume(data["authToken"])
            await again.expect("getUserData")
            finish = (await again.expect("finish", 2))[0]
            assert finish["callId"] == "c-var-end", finish
            await again.close()
        await self._with({"detached_finish": "replay", "detached_calls": "end"}, check)

    async def bad_token_bare_close(self):
        async def check():
            client = await connect(self.emu.url)
            await client.resume("f" * 32)
            assert await client.wait_closed() == 1000, client.close_code
            assert [n for n, _ in client.received] == [], client.received
        await self._with({"bad_token": "close"}, check)

    async def slow_connection_answer(self):
        async def check():
            login, password = self.base.user()
            client = await connect(self.emu.url)
            started = time.monotonic()
            await client.send("connection", {"sipLogin": login, "sipPassword": password,
                                             "sipRegisterRequired": True, "keepAlive": True})
            await client.send("connection", {"sipLogin": login, "sipPassword": password})  # ignored
            await client.send("ping", None)
            await client.expect("pong", 0.5)  # the socket is served meanwhile
            await client.expect("getUserData", 3)
            assert time.monotonic() - started >= 0.9, "answered too early"
            await client.expect("registered")
            assert len(await self.emu.aget(f"/sessions?login={login}")) == 1
            await client.close()
            gone_login, gone_password = self.base.user()
            gone = await connect(self.emu.url)
            await gone.send("connection", {"sipLogin": gone_login, "sipPassword": gone_password,
                                           "sipRegisterRequired": True, "keepAlive": True})
            await gone.close()
            await asyncio.sleep(1.3)
            assert await self.emu.aget(f"/sessions?login={gone_login}") == [], "session for a closed socket"
        await self._with({"connection_delay": 1.0}, check)


async def cli_flags(runner) -> None:
    """Every variant flag parses, and GET /config shows it."""
    emulator = Emulator("--media", "fixed", "--resume-registered", "yes", "--resume-token", "rotate",
                        "--registered-order", "before", "--resume-drop-ms", "20", "--resume-drop-count",
                        "3", "--detached-finish", "replay", "--connection-delay", "2.5", "--ice-lite",
                        "--bad-token", "close")

    async def check():
        config = await emulator.aget("/config")
        expected = {"resume_registered": "yes", "resume_token": "rotate", "registered_order": "before",
                    "resume_drop_ms": 20.0, "resume_drop_count": 3, "detached_finish": "replay",
                    "connection_delay": 2.5, "ice_lite": True, "bad_token": "close"}
        assert {k: config[k] for k in expected} == expected, config
    try:
        await runner.run("variant_cli_flags", check)
    finally:
        emulator.stop()
        emulator.remove_log()
