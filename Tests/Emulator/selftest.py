#!/usr/bin/python3
"""Signaling self-test of the WCS emulator: spawns it (--media fixed) and plays the client side.

Usage: /usr/bin/python3 Tests/Emulator/selftest.py   (exit status 0 when every check passes)
"""
from __future__ import annotations

import asyncio
import http.server
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading

from emulator_harness import Emulator, Runner, connect
from selftest_faults import fault_checks
from selftest_deaf import DeafChecks
from selftest_variants import VariantChecks, cli_flags

USERS = {f"1{n:03d}": f"pw{n}" for n in range(1, 80)}

CLIENT_OFFER = "\r\n".join([
    "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 126", "c=IN IP4 0.0.0.0", "a=ice-ufrag:abcd",
    "a=ice-pwd:abcdefghijklmnopqrstuvwx", "a=fingerprint:sha-256 " + ":".join(["AB"] * 32),
    "a=setup:actpass", "a=mid:0", "a=sendrecv", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2",
    "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
    "a=rtpmap:126 telephone-event/8000", ""])
CLIENT_ANSWER = CLIENT_OFFER.replace("a=setup:actpass", "a=setup:active")


class Checks:
    """Every check gets its own SIP login so leftovers of one cannot disturb another."""

    def __init__(self, emulator: Emulator, push_file: str):
        self.emu = emulator
        self.push_file = push_file
        self._next = iter(sorted(USERS))
        self.client_offer, self.client_answer = CLIENT_OFFER, CLIENT_ANSWER

    def user(self):
        login = next(self._next)
        return login, USERS[login]

    async def detached(self, login: str) -> dict:
        """Waits until the login's session is detached (the server notices a close a moment after
        the client's close handshake ends); returns its GET /sessions entry."""
        for _ in range(40):
            session = (await self.emu.aget(f"/sessions?login={login}"))[0]
            if not session["connected"]:
                return session
            await asyncio.sleep(0.05)
        raise AssertionError(f"session of {login} still attached: {session}")

    async def registered_client(self, keep_alive=True):
        login, password = self.user()
        client = await connect(self.emu.url)
        data = await client.login(login, password, keep_alive=keep_alive)
        await client.expect("registered")
        return client, login, data

    # -- sessions --------------------------------------------------------------------------------

    async def login_and_register(self):
        login, password = self.user()
        client = await connect(self.emu.url)
        data = await client.login(login, password)
        assert data["status"] == "ESTABLISHED" and data["sipLogin"] == login, data
        assert len(data["authToken"]) == 32 and data["sessionId"], data
        assert "sipPassword" not in data, "password echoed"
        assert (await client.expect("registered"))[0] == {"status": "REGISTERED"}
        sessions = await self.emu.aget(f"/sessions?login={login}")
        assert len(sessions) == 1 and sessions[0]["registered"] and sessions[0]["connected"], sessions
        assert sessions[0]["token"] == data["authToken"]
        await client.close()

    async def wrong_password(self):
        login, _ = self.user()
        client = await connect(self.emu.url)
        await client.login(login, "wrong")
        fail = (await client.expect("fail"))[0]
        assert fail == {"apiMethod": "RegistrationStatusEvent", "status": "AUTHENTICATION_FAIL",
                        "info": "Authentication failed"}, fail
        ring = await self.emu.apost("/ring", {"login": login, "caller": "2000"})
        assert ring["state"] == "failed" and ring["reason"] == "not_registered", ring
        assert not (await self.emu.aget(f"/sessions?login={login}"))[0]["registered"]
        await client.close()

    async def authentication_name(self):
        login, password = self.user()
        client = await connect(self.emu.url)
        await client.send("connection", {"sipLogin": "alias", "sipAuthenticationName": login,
                                         "sipPassword": password, "sipRegisterRequired": "true"})
        await client.expect("getUserData")
        await client.expect("registered")
        await client.close()

    async def resume_by_token(self):
        client, login, data = await self.registered_client()
        await client.close()
        session = await self.detached(login)
        assert session["expires_in"] > 3000, session
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        resumed = (await again.expect("getUserData"))[0]
        assert resumed["authToken"] == data["authToken"] and resumed["sipLogin"] == login, resumed
        assert resumed["sessionId"] == data["sessionId"]
        assert not [f for f in await again.quiet(0.5) if f[0] == "registered"], "registered re-sent"
        await again.close()

    async def resume_replaces_attached_socket(self):
        first, login, data = await self.registered_client()
        second = await connect(self.emu.url)
        await second.resume(data["authToken"])
        await second.expect("getUserData")
        await first.wait_closed()
        session = (await self.emu.aget(f"/sessions?login={login}"))[0]
        assert session["connected"], "the resumed socket must stay attached"
        await second.close()

    async def expired_token_fails(self):
        client, login, data = await self.registered_client()
        await client.close()
        await self.emu.apost("/expire-token", {"login": login})
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        fail = (await again.expect("fail"))[0]
        assert fail == {"apiMethod": "ConnectionStatusEvent", "status": "FAILED",
                        "info": "Session not found"}, fail
        await again.wait_closed()

    async def expired_token_new_session(self):
        await self.emu.apost("/config", {"bad_token": "new-session"})
        try:
            again = await connect(self.emu.url)
            await again.resume("0" * 32)
            data = (await again.expect("getUserData"))[0]
            assert data["authToken"] != "0" * 32 and data["status"] == "ESTABLISHED", data
            assert not [f for f in await again.quiet(0.3) if f[0] == "registered"]
            await again.close()
        finally:
            await self.emu.apost("/config", {"bad_token": "fail"})

    async def no_keepalive_destroys_session(self):
        client, login, _ = await self.registered_client(keep_alive=False)
        await client.close()
        await asyncio.sleep(0.2)
        assert await self.emu.aget(f"/sessions?login={login}") == []

    async def keepalive_ttl_expires(self):
        await self.emu.apost("/config", {"keepalive_ttl": 0.3})
        try:
            client, login, _ = await self.registered_client()
            client.abort()
            await asyncio.sleep(1.0)
            assert await self.emu.aget(f"/sessions?login={login}") == []
        finally:
            await self.emu.apost("/config", {"keepalive_ttl": 3600})

    async def push_url_delivery(self):
        bodies = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                bodies.append((self.headers.get("Content-Type"), self.headers.get("X-Relay-Secret"),
                               json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        await self.emu.apost("/config", {"push_url": f"http://127.0.0.1:{server.server_port}/push",
                                         "push_headers": {"X-Relay-Secret": "s3cret"}})
        try:
            client, login, _ = await self.registered_client()
            await client.close()
            await self.detached(login)
            ring = await self.emu.apost("/ring", {"login": login, "caller": "2009"})
            for _ in range(300):  # up to 30 s: on a loaded machine the POST can take seconds
                if bodies:
                    break
                await asyncio.sleep(0.1)
            assert bodies == [("application/json", "s3cret", {"id": ring["callId"], "uuid": ring["uuid"],
                                                              "handle": "2009"})], bodies
            # The delivery is recorded once the POST returns, which can be after the receiver saw the body.
            for _ in range(100):
                push = (await self.emu.aget(f"/pushes?login={login}"))[0]
                if any(d.get("target") == "url" for d in push["deliveries"]):
                    break
                await asyncio.sleep(0.1)
            assert {"target": "url", "ok": True, "status": 204} in push["deliveries"], push
        finally:
            await self.emu.apost("/config", {"push_url": None, "push_headers": None})
            server.shutdown()

    # -- keep-alive --------------------------------------------------------------------------------

    async def ping_timeout_closes(self):
        await self.emu.apost("/config", {"ping_interval": 0.1, "missed_pongs": 3})
        try:
            mute = await connect(self.emu.url, auto_pong=False)
            polite = await connect(self.emu.url)
            await mute.wait_closed(5)
            assert mute.pings == 3, mute.pings
            assert polite.close_code is None and polite.pings >= 3
            await polite.close()
        finally:
            await self.emu.apost("/config", {"ping_interval": 5, "missed_pongs": 10})

    async def stop_pinging(self):
        await self.emu.apost("/config", {"ping_interval": 0.1})
        client, login, _ = await self.registered_client()
        try:
            await self.emu.apost("/stop-pinging", {"login": login, "on": True})
            before = client.pings
            await asyncio.sleep(0.5)
            assert client.pings == before, "pings continued"
            await self.emu.apost("/stop-pinging", {"login": login, "on": False})
            await asyncio.sleep(0.5)
            assert client.pings > before, "pings did not resume"
        finally:
            await self.emu.apost("/config", {"ping_interval": 5})
            await client.close()

    async def client_ping_gets_pong(self):
        client = await connect(self.emu.url)
        await client.send("ping", None)
        assert await client.expect("pong") == [None]
        await client.close()

    async def stop_answering(self):
        client = await connect(self.emu.url)
        await self.emu.apost("/stop-answering", {"on": True})
        try:
            await client.send("connection", {"appKey": "defaultApp"})
            assert await client.quiet(0.5) == [], "server answered while silent"
        finally:
            await self.emu.apost("/stop-answering", {"on": False})
        await client.send("ping", None)
        await client.expect("pong")
        await client.close()

    async def malformed_frames(self):
        client = await connect(self.emu.url)
        for bad in ('{"message":', "[1,2]", '{"data":[1]}', '{"message":"call","data":5}'):
            await client.send_raw(bad)
        await client.send_raw(b"\x00\x01")
        await client.send("connection", {"appKey": "defaultApp"})
        data = (await client.expect("getUserData"))[0]
        await self.emu.apost("/malformed", {"session": data["sessionId"], "frame": '{"message":'})
        assert await client.expect("<raw>") == ['{"message":']
        await self.emu.apost("/malformed", {"session": data["sessionId"], "binary": True})
        await client.expect("<binary>")
        await client.close()

    async def cut_drops_without_close_frame(self):
        client, login, _ = await self.registered_client()
        await self.emu.apost("/cut", {"login": login})
        assert await client.wait_closed() == 1006, client.close_code
        await asyncio.sleep(0.1)
        assert not (await self.emu.aget(f"/sessions?login={login}"))[0]["connected"]

    # -- calls -------------------------------------------------------------------------------------

    async def incoming_call_order_and_decline(self):
        client, login, _ = await self.registered_client()
        ring = await self.emu.apost("/ring", {"login": login, "caller": "2001", "display_name": "Bob"})
        assert ring["state"] == "ringing" and not ring["pushed"], ring
        names = []
        while len(names) < 3:
            name, data = await client.next_frame()
            names.append(name)
            if name == "setRemoteSDP":
                assert data[0] == ring["callId"] and data[1].startswith("v=0"), data
                assert "a=candidate:" in data[1] and "opus/48000/2" in data[1]
            elif name == "notifyIncomingCall":
                notify = data[0]
                assert notify["callId"] == ring["callId"] and notify["uuid"] == ring["uuid"]
                assert notify["incoming"] is True and notify["caller"] == "2001"
                assert notify["callee"] == login and notify["visibleName"] == "Bob"
                assert notify["status"] == "RING" and notify["mediaProvider"] == "WebRTC"
        assert names == ["setRemoteSDP", "notifyIncomingCall", "ring"], names
        await client.send("hangup", {"callId": ring["callId"]})
        finish = (await client.expect("finish"))[0]
        assert finish["status"] == "FINISH" and finish["info"] == "Normal call clearing", finish
        call = (await self.emu.aget(f"/calls?callId={ring['callId']}"))[0]
        assert call["state"] == "ended" and call["end_reason"] == "declined", call
        await client.close()

    async def incoming_call_answered_then_remote_hangup(self):
        client, login, _ = await self.registered_client()
        ring = await self.emu.apost("/ring", {"login": login, "caller": "2002"})
        await client.expect("ring")
        await client.send("answer", {"callId": ring["callId"], "incoming": True, "status": "PENDING",
                                     "sdp": CLIENT_ANSWER, "callee": login, "hasVideo": True})
        talk = (await client.expect("talk"))[0]
        assert talk["status"] == "ESTABLISHED" and talk["callId"] == ring["callId"], talk
        await client.send("sendDtmf", {"callId": ring["callId"], "type": "RFC2833", "dtmf": "1"})
        await client.send("sendDtmf", {"callId": ring["callId"], "type": "INFO", "dtmf": "#"})
        await asyncio.sleep(0.2)
        call = (await self.emu.aget(f"/calls?callId={ring['callId']}"))[0]
        assert call["dtmf"] == "1#" and call["answer_sdp_present"] and call["state"] == "established"
        await self.emu.apost("/hangup", {"callId": ring["callId"]})
        assert (await client.expect("finish"))[0]["status"] == "FINISH"
        await client.close()

    async def ring_timeout_is_missed(self):
        client, login, _ = await self.registered_client()
        ring = await self.emu.apost("/ring", {"login": login, "ring_timeout": 0.3})
        await client.expect("ring")
        assert (await client.expect("finish", 3))[0]["status"] == "FINISH"
        call = (await self.emu.aget(f"/calls?callId={ring['callId']}"))[0]
        assert call["end_reason"] == "missed", call
        await client.close()

    async def push_and_replay_on_resume(self):
        client, login, data = await self.registered_client()
        client.abort()
        await asyncio.sleep(0.2)
        ring = await self.emu.apost("/ring", {"login": login, "caller": "2003"})
        assert ring["state"] == "ringing" and ring["pushed"], ring
        push = [p for p in await self.emu.aget(f"/pushes?login={login}") if p["callId"] == ring["callId"]]
        assert len(push) == 1 and push[0]["handle"] == "2003" and push[0]["uuid"] == ring["uuid"], push
        for _ in range(50):
            await asyncio.sleep(0.1)
            delivered = [json.loads(line) for line in open(self.push_file) if line.strip()]
            if any(d["id"] == ring["callId"] for d in delivered):
                break
        assert {"id": ring["callId"], "uuid": ring["uuid"], "handle": "2003"} in delivered, delivered
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        order = [(await again.next_frame())[0] for _ in range(4)]
        assert order == ["getUserData", "setRemoteSDP", "notifyIncomingCall", "ring"], order
        await again.send("answer", {"callId": ring["callId"], "sdp": CLIENT_ANSWER})
        assert (await again.expect("talk"))[0]["status"] == "ESTABLISHED"
        await again.send("hangup", {"callId": ring["callId"]})
        await again.expect("finish")
        await again.close()

    async def outgoing_call_hold_dtmf_hangup(self):
        client, login, _ = await self.registered_client()
        await client.send("call", {"callId": "c-1", "incoming": False, "status": "PENDING",
                                   "sdp": CLIENT_OFFER, "caller": login, "callee": "3001",
                                   "hasAudio": True, "hasVideo": False, "mediaProvider": "WebRTC"})
        names = [(await client.next_frame())[0] for _ in range(4)]
        assert names == ["setRemoteSDP", "notifyTryingResponse", "ring", "talk"], names
        sdp = [d for n, d in client.received if n == "setRemoteSDP"][-1]
        assert sdp[0] == "c-1" and "a=setup:active" in sdp[1] and "telephone-event/8000" in sdp[1]
        await client.send("hold", {"callId": "c-1"})
        assert (await client.expect("hold"))[0]["status"] == "HOLD"
        await client.send("unhold", {"callId": "c-1"})
        assert (await client.expect("talk"))[0]["status"] == "ESTABLISHED"
        await client.send("sendDtmf", {"callId": "c-1", "type": "RFC2833", "dtmf": "5"})
        await client.send("hangup", {"callId": "c-1"})
        finish = (await client.expect("finish"))[0]
        assert finish["status"] == "FINISH" and finish["info"] == "Normal call clearing"
        call = (await self.emu.aget("/calls?callId=c-1"))[0]
        assert call["dtmf"] == "5" and call["end_reason"] == "local_hangup", call
        await client.close()

    async def outgoing_busy_fail_noanswer(self):
        client, login, _ = await self.registered_client()
        await self.emu.apost("/callee", {"number": "3002", "behavior": "busy", "delay": 0})
        await self.emu.apost("/callee", {"number": "3003", "behavior": "fail"})
        await self.emu.apost("/callee", {"number": "3004", "behavior": "noanswer"})
        for call_id, callee in (("c-busy", "3002"), ("c-fail", "3003"), ("c-noanswer", "3004")):
            await client.send("call", {"callId": call_id, "callee": callee, "sdp": CLIENT_OFFER})
        busy = (await client.expect("finish", where=lambda d: d[0]["callId"] == "c-busy"))[0]
        assert busy["status"] == "BUSY", busy
        failed = (await client.expect("finish", where=lambda d: d[0]["callId"] == "c-fail"))[0]
        assert failed["status"] == "FAILED" and failed["info"] == "Failed by request timeout", failed
        assert (await self.emu.aget("/calls?callId=c-noanswer"))[0]["state"] == "ringing"
        await client.send("hangup", {"callId": "c-noanswer"})
        assert (await client.expect("finish", where=lambda d: d[0]["callId"] == "c-noanswer"))
        assert (await self.emu.aget("/calls?callId=c-noanswer"))[0]["end_reason"] == "canceled"
        await client.close()

    async def transfer(self):
        client, login, _ = await self.registered_client()
        await client.send("call", {"callId": "c-xfer", "callee": "3005", "sdp": CLIENT_OFFER})
        await client.expect("talk")
        await client.send("hold", {"callId": "c-xfer", "holdForTransfer": True})
        assert (await client.expect("hold"))[0]["status"] == "HOLD"
        await client.send("transfer", {"callId": "c-xfer", "target": "3006"})
        statuses = [(await client.expect("notifyTransferEvent"))[0]["status"] for _ in range(3)]
        assert statuses == ["ACCEPTED", "TRYING", "COMPLETED"], statuses
        assert (await client.expect("finish"))[0]["callId"] == "c-xfer"
        call = (await self.emu.aget("/calls?callId=c-xfer"))[0]
        assert call["transfer_target"] == "3006" and call["hold_for_transfer"], call
        await client.close()

    async def unknown_call_ids_ignored(self):
        client, _, _ = await self.registered_client()
        for name in ("answer", "hangup", "hold", "unhold", "transfer", "sendDtmf"):
            await client.send(name, {"callId": "nope", "target": "1", "sdp": CLIENT_ANSWER})
        await client.send("someFutureMessage", {"x": 1})
        assert await client.quiet(0.3) == []
        await client.send("ping", None)
        await client.expect("pong")
        await client.close()

    # -- control API ---------------------------------------------------------------------------------

    async def control_errors(self):
        assert (await asyncio.to_thread(self.emu.request, "GET", "/nope"))[0] == 404
        assert (await asyncio.to_thread(self.emu.request, "POST", "/ring", {}))[0] == 400
        assert (await asyncio.to_thread(self.emu.request, "POST", "/hangup", {"callId": "x"}))[0] == 404
        assert (await asyncio.to_thread(self.emu.request, "POST", "/config", {"ping_interval": -1}))[0] == 400
        assert (await asyncio.to_thread(self.emu.request, "GET", "/ring"))[0] == 405

    async def restart_drops_everything(self):
        client, login, data = await self.registered_client()
        await self.emu.apost("/restart")
        assert await client.wait_closed() == 1012, client.close_code
        assert await self.emu.aget("/sessions") == []
        again = await connect(self.emu.url)
        await again.resume(data["authToken"])
        await again.expect("fail")
        await again.wait_closed()

    async def attempt_log(self):
        restart = await self.emu.apost("/restart")
        client, login, data = await self.registered_client()
        resumer = await connect(self.emu.url)
        await resumer.resume(data["authToken"])
        await resumer.expect("getUserData")
        await resumer.close()
        await client.close()
        await self.emu.apost("/restart")
        refused = await connect(self.emu.url)
        await refused.resume(data["authToken"])
        await refused.expect("fail")
        await refused.wait_closed()
        log = await self.emu.aget(f"/attempts?since={restart['time']}")
        mine = [a for a in log["attempts"] if a["login"] == login]
        assert [a["kind"] for a in mine] == ["login", "resume", "token_refused"], log
        assert log["per_login"][login] == 3 and log["refused"] == 0, log
        assert log["peak_per_second"] >= 1 and log["total"] == len(log["attempts"]), log
        assert (await asyncio.to_thread(self.emu.request, "GET", "/attempts?since=x"))[0] == 400

    async def admission_limit(self):
        assert (await asyncio.to_thread(self.emu.request, "POST", "/config",
                                        {"max_connections_per_second": -1}))[0] == 400
        await self.emu.apost("/config", {"max_connections_per_second": 2})
        try:
            await asyncio.sleep(1.1)  # sockets of earlier checks no longer count
            logins = [self.user() for _ in range(3)]
            clients = [await connect(self.emu.url) for _ in logins]
            for client, (login, password) in zip(clients, logins):
                await client.send("connection", {"sipLogin": login, "sipPassword": password,
                                                 "sipRegisterRequired": True, "keepAlive": True})
            await clients[0].expect("registered")
            await clients[1].expect("registered")
            assert await clients[2].wait_closed() == 1013, clients[2].close_code
            log = await self.emu.aget("/attempts")
            refused = [a for a in log["attempts"] if not a["admitted"]]
            assert [a["login"] for a in refused] == [logins[2][0]], refused
            assert not await self.emu.aget(f"/sessions?login={logins[2][0]}")
            await asyncio.sleep(1.1)  # the window has passed: admitted again
            again = await connect(self.emu.url)
            await again.login(*logins[2])
            await again.expect("registered")
            for client in (clients[0], clients[1], again):
                await client.close()
        finally:
            await self.emu.apost("/config", {"max_connections_per_second": 0})


async def tls_mode(runner: Runner) -> None:
    """A second emulator with --tls-cert: wss works with the certificate as trust anchor."""
    with tempfile.TemporaryDirectory(prefix="wcs-tls-") as scratch:
        cert, key = os.path.join(scratch, "cert.pem"), os.path.join(scratch, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        emulator = Emulator("--media", "fixed", "--tls-cert", cert, "--tls-key", key, "--user", "1001:pw")

        async def check():
            assert emulator.ready["scheme"] == "wss" and emulator.url.startswith("wss://"), emulator.ready
            context = ssl.create_default_context(cafile=cert)
            client = await connect(emulator.url, ssl_context=context)
            data = await client.login("1001", "pw")
            assert data["status"] == "ESTABLISHED"
            await client.expect("registered")
            await client.close()
        try:
            await runner.run("tls_mode", check)
        finally:
            emulator.stop()
            emulator.remove_log()


async def main() -> int:
    push_file = tempfile.NamedTemporaryFile(prefix="wcs-push-", suffix=".jsonl", delete=False).name
    args = ["--media", "fixed", "--push-command", f"cat >> {push_file}; echo >> {push_file}"]
    for login, password in USERS.items():
        args += ["--user", f"{login}:{password}"]
    emulator = Emulator(*args)
    checks = Checks(emulator, push_file)
    runner = Runner()
    try:
        for name in [n for n in Checks.__dict__ if not n.startswith("_") and n not in (
                "user", "registered_client", "detached")]:
            await runner.run(name, getattr(checks, name))
        variants = VariantChecks(checks)
        for name in [n for n in VariantChecks.__dict__ if not n.startswith("_")]:
            await runner.run(f"variant_{name}", getattr(variants, name))
        deaf = DeafChecks(checks)
        for name in [n for n in DeafChecks.__dict__ if not n.startswith("_")]:
            await runner.run(f"deaf_{name}", getattr(deaf, name))
    finally:
        emulator.stop()
        os.unlink(push_file)
    await tls_mode(runner)
    await cli_flags(runner)
    await fault_checks(runner)
    return runner.summary(emulator)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
