"""The HTTP/1.1 JSON control API (127.0.0.1 only). Every endpoint is documented in README.md.

One request per TCP connection: the server answers with `Connection: close` and closes.
Errors are `{"error": "..."}` with status 400 (bad request), 404 (unknown path, call, session or login)
or 405 (wrong method).
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.parse
from typing import Any, Awaitable, Callable, Dict, List, Tuple

from .calls import CALLEE_BEHAVIORS, OFFER_FAULTS
from .settings import is_valid_media_source
from .variant_settings import RESTART_SESSION_MODES

log = logging.getLogger("wcsemu.control")

MAX_BODY = 1 << 20
READ_TIMEOUT = 10.0
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           413: "Payload Too Large", 500: "Internal Server Error"}


class ApiError(Exception):
    """An error answer: HTTP status + message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


Handler = Callable[[Dict[str, Any], Dict[str, str]], Awaitable[Any]]


def _text(body: Dict[str, Any], key: str, required: bool = True) -> Any:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise ApiError(400, f"'{key}' must be a non-empty string")
    return value


def _flag(body: Dict[str, Any], key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise ApiError(400, f"'{key}' must be true or false")
    return value


class ControlApi:
    """Routes control requests to the emulator."""

    def __init__(self, emulator):
        self.emu = emulator
        self.routes: Dict[Tuple[str, str], Handler] = {
            ("GET", "/health"): self.health,
            ("GET", "/config"): self.get_config,
            ("POST", "/config"): self.set_config,
            ("GET", "/sessions"): self.sessions,
            ("GET", "/calls"): self.calls,
            ("GET", "/pushes"): self.pushes,
            ("GET", "/frames"): self.frames,
            ("GET", "/callees"): self.callees,
            ("POST", "/ring"): self.ring,
            ("POST", "/hangup"): self.hangup,
            ("POST", "/expire-token"): self.expire_token,
            ("POST", "/cut"): self.cut,
            ("POST", "/close"): self.close,
            ("POST", "/stop-pinging"): self.stop_pinging,
            ("POST", "/stop-answering"): self.stop_answering,
            ("POST", "/malformed"): self.malformed,
            ("POST", "/send"): self.send,
            ("POST", "/callee"): self.callee,
            ("POST", "/dtmf-tones"): self.dtmf_tones,
            ("POST", "/sip-dtmf"): self.sip_dtmf,
            ("POST", "/restart"): self.restart,
            ("GET", "/attempts"): self.attempts,
            ("GET", "/faults"): self.get_faults,
            ("POST", "/faults"): self.set_faults,
            ("POST", "/down"): self.down,
            ("POST", "/up"): self.up,
            ("GET", "/tokens"): self.tokens,
            ("GET", "/undeliverable"): self.undeliverable,
        }

    # -- HTTP plumbing ---------------------------------------------------------------------------

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """asyncio.start_server callback: one request, one JSON answer, close."""
        try:
            status, answer = await asyncio.wait_for(self._serve(reader), READ_TIMEOUT)
        except asyncio.TimeoutError:
            status, answer = 400, {"error": "request not received in time"}
        except ApiError as error:
            status, answer = error.status, {"error": str(error)}
        body = json.dumps(answer).encode()
        head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        try:
            writer.write(head + body)
            await writer.drain()
            writer.close()
            await writer.wait_closed()
        except (ConnectionError, OSError):
            pass

    async def _serve(self, reader: asyncio.StreamReader) -> Tuple[int, Any]:
        try:
            request_line = (await reader.readline()).decode("latin-1").strip()
            method, target, _version = request_line.split(" ", 2)
            length = 0
            while True:
                line = (await reader.readline()).decode("latin-1")
                if line in ("\r\n", "\n", ""):
                    break
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, "malformed HTTP request") from None
        if length > MAX_BODY:
            raise ApiError(413, "body too large")
        raw = await reader.readexactly(length) if length > 0 else b""
        parts = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = parts.path.rstrip("/") or "/"
        handler = self.routes.get((method, path))
        if handler is None:
            if any(p == path for _, p in self.routes):
                raise ApiError(405, f"{method} not allowed on {path}")
            raise ApiError(404, f"no endpoint {method} {path}")
        body: Any = {}
        if raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                raise ApiError(400, "body is not JSON") from None
        if not isinstance(body, dict):
            raise ApiError(400, "body must be a JSON object")
        log.info("control %s %s", method, path)
        try:
            return 200, await handler(body, query)
        except ApiError:
            raise
        except Exception as error:  # a bug must not kill the control server
            log.exception("control %s %s failed", method, path)
            raise ApiError(500, f"internal error: {error}") from None

    # -- target resolution -----------------------------------------------------------------------

    def _sessions_named(self, body: Dict[str, Any]) -> List[Any]:
        """Sessions named by body.session (an id) or body.login; 404 if none."""
        manager = self.emu.sessions
        if body.get("session") is not None:
            session = manager.by_id.get(_text(body, "session"))
            if session is None:
                raise ApiError(404, "no such session")
            return [session]
        login = _text(body, "login")
        sessions = manager.for_login(login)
        if not sessions:
            raise ApiError(404, f"no session for login {login}")
        return sessions

    def _connections_named(self, body: Dict[str, Any]) -> List[Any]:
        """Attached sockets of the named sessions, or every open socket when none is named."""
        if body.get("session") is None and body.get("login") is None:
            return list(self.emu.connections)
        conns = [s.conn for s in self._sessions_named(body) if s.conn is not None]
        if not conns:
            raise ApiError(404, "the named session has no connected socket")
        return conns

    def _call_named(self, body: Dict[str, Any]) -> Any:
        call = self.emu.calls.calls.get(_text(body, "callId"))
        if call is None:
            raise ApiError(404, "no such call")
        return call

    # -- endpoints -------------------------------------------------------------------------------

    async def health(self, body, query):
        return {"ok": True}

    async def get_config(self, body, query):
        return self.emu.settings.public_view()

    async def set_config(self, body, query):
        try:
            self.emu.settings.update(body)
        except ValueError as error:
            raise ApiError(400, str(error)) from None
        self.emu.variants.on_config_change(body)
        return self.emu.settings.public_view()

    async def sessions(self, body, query):
        found = self.emu.sessions.all()
        if "login" in query:
            found = [s for s in found if s.login == query["login"]]
        return [s.view() for s in found]

    async def calls(self, body, query):
        found = self.emu.calls.all()
        for key, attr in (("login", "login"), ("state", "state"), ("direction", "direction"),
                          ("callId", "id")):
            if key in query:
                found = [c for c in found if getattr(c, attr) == query[key]]
        views = []
        for call in found:
            view = call.view()
            view["media"] = await self.emu.engine.stats(call)
            views.append(view)
        return views

    async def pushes(self, body, query):
        found = self.emu.push.records
        if "login" in query:
            found = [p for p in found if p["login"] == query["login"]]
        return list(found)

    async def frames(self, body, query):
        found = list(self.emu.frames)
        for key in ("login", "session", "message", "dir"):
            if key in query:
                found = [f for f in found if f.get(key) == query[key]]
        return found

    async def callees(self, body, query):
        return dict(self.emu.calls.callees)

    async def ring(self, body, query):
        login = _text(body, "login")
        caller = _text(body, "caller", required=False) or "1000"
        display = body.get("display_name")
        if display is not None and not isinstance(display, str):
            raise ApiError(400, "'display_name' must be a string")
        source = _text(body, "source", required=False)
        if source is not None and not is_valid_media_source(source):
            raise ApiError(400, "'source' must be tone:<hz>, file:<path> or silence")
        timeout = body.get("ring_timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or timeout <= 0):
            raise ApiError(400, "'ring_timeout' must be a number > 0")
        fault = _text(body, "fault", required=False)
        if fault not in (None, "fingerprint", "unreachable"):
            raise ApiError(400, "'fault' must be fingerprint or unreachable")
        offer = _text(body, "offer", required=False)
        if offer not in (None,) + OFFER_FAULTS:
            raise ApiError(400, "'offer' must be one of " + ", ".join(OFFER_FAULTS))
        no_finish = _flag(body, "no_finish", False)
        external = _text(body, "offer_sdp", required=False)
        if external is not None and (fault is not None or source is not None):
            raise ApiError(400, "'offer_sdp' (an external media leg) excludes 'fault' and 'source'")
        call_id = body.get("callId")
        if call_id is not None and (not isinstance(call_id, str) or not call_id or call_id in self.emu.calls.calls):
            raise ApiError(400, "'callId' must be a non-empty string no call has")
        call = await self.emu.calls.ring(login, caller, display, source, timeout, fault, offer, no_finish,
                                         external_offer=external, call_id=call_id)
        return {"callId": call.id, "uuid": call.uuid, "state": call.state, "pushed": call.pushed,
                "session": call.session_id, "reason": call.end_reason,
                "undeliverable": self.emu.delivery.reason_of(call.id)}

    async def hangup(self, body, query):
        call = self._call_named(body)
        was_live = call.live
        await self.emu.calls.sip_hangup(call)
        return {"callId": call.id, "was_live": was_live, "state": call.state}

    async def expire_token(self, body, query):
        manager = self.emu.sessions
        if body.get("token") is not None:
            session = manager.by_token.get(_text(body, "token"))
            if session is None:
                raise ApiError(404, "no session with that token")
            sessions = [session]
        else:
            sessions = self._sessions_named(body)
        for session in sessions:
            await manager.destroy(session, "token expired (control API)")
        return {"expired": [s.id for s in sessions]}

    async def cut(self, body, query):
        conns = self._connections_named(body)
        for conn in conns:
            conn.abort()
        return {"cut": len(conns)}

    async def close(self, body, query):
        code = body.get("code", 1000)
        if isinstance(code, bool) or not isinstance(code, int) or not (1000 <= code <= 4999):
            raise ApiError(400, "'code' must be an integer 1000..4999")
        reason = body.get("reason", "")
        if not isinstance(reason, str):
            raise ApiError(400, "'reason' must be a string")
        conns = self._connections_named(body)
        for conn in conns:
            conn.close(code, reason)
        return {"closed": len(conns)}

    async def stop_pinging(self, body, query):
        on = _flag(body, "on", True)
        login = _text(body, "login", required=False)
        if login is None:
            self.emu.no_ping_all = on
            if not on:
                self.emu.no_ping_logins.clear()
        elif on:
            self.emu.no_ping_logins.add(login)
        else:
            self.emu.no_ping_logins.discard(login)
        return {"all": self.emu.no_ping_all, "logins": sorted(self.emu.no_ping_logins)}

    async def stop_answering(self, body, query):
        self.emu.silent = _flag(body, "on", True)
        return {"silent": self.emu.silent}

    async def malformed(self, body, query):
        binary = _flag(body, "binary", False)
        frame = body.get("frame", "" if not binary else None)
        if binary:
            payload: Any = frame.encode() if isinstance(frame, str) else b"\x00\x01\x02\x03"
        elif isinstance(frame, str):
            payload = frame
        else:
            raise ApiError(400, "'frame' must be a string")
        conns = self._connections_named(body)
        for conn in conns:
            await conn.send_raw(payload)
        return {"sent": len(conns)}

    async def send(self, body, query):
        name = _text(body, "message")
        data = body.get("data", [None])
        if not isinstance(data, list):
            raise ApiError(400, "'data' must be an array")
        conns = self._connections_named(body)
        for conn in conns:
            await conn.send(name, data)
        return {"sent": len(conns)}

    async def callee(self, body, query):
        number = _text(body, "number")
        behavior = body.get("behavior", "answer")
        if behavior == "default":
            self.emu.calls.callees.pop(number, None)
            return {"number": number, "behavior": "default"}
        if behavior not in CALLEE_BEHAVIORS:
            raise ApiError(400, f"'behavior' must be one of {', '.join(CALLEE_BEHAVIORS)} or default")
        delay = body.get("delay")
        if delay is not None and (isinstance(delay, bool) or not isinstance(delay, (int, float))
                                  or delay < 0):
            raise ApiError(400, "'delay' must be a number >= 0")
        self.emu.calls.callees[number] = {"behavior": behavior, "delay": delay}
        return {"number": number, "behavior": behavior, "delay": delay}

    async def dtmf_tones(self, body, query):
        """Plays DTMF keys as tones in the caller's audio (mixed over the call's source, or replacing it)."""
        from .dtmf_tones import DTMFMixTrack, valid_keys
        call = self._call_named(body)
        keys = body.get("keys")
        if not valid_keys(keys):
            raise ApiError(400, "'keys' must be 1-256 of 0-9, *, #, A-D")
        track = getattr(call.media, "source", None)
        if not isinstance(track, DTMFMixTrack) or call.media.stopped:
            raise ApiError(409, "the call has no live aiortc media leg (--media aiortc) to play tones in")
        numbers = {}
        for name, default, low, high in (("tone_ms", 80, 10, 2000), ("gap_ms", 80, 0, 5000),
                                         ("level_dbm0", -8, -50, 0), ("twist_db", 2, -12, 12)):
            value = body.get(name, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ApiError(400, f"'{name}' must be a number {low}..{high}")
            numbers[name] = float(value)
        seconds = track.queue(keys, numbers["tone_ms"], numbers["gap_ms"], numbers["level_dbm0"], numbers["twist_db"],
                              _flag(body, "replace", False))
        return {"callId": call.id, "keys": len(keys), "seconds": seconds}

    async def sip_dtmf(self, body, query):
        """The far end sends DTMF by SIP INFO; the server relays it to the client as --sip-info-dtmf says."""
        from .dtmf_tones import valid_keys
        call = self._call_named(body)
        keys = body.get("keys")
        if not valid_keys(keys):
            raise ApiError(400, "'keys' must be 1-256 of 0-9, *, #, A-D")
        via = body.get("via", self.emu.settings.sip_info_dtmf)
        if via not in ("notify", "data", "off"):
            raise ApiError(400, "'via' must be notify, data or off")
        if via == "off":
            return {"callId": call.id, "relayed": False, "via": via}
        payload = {"callId": call.id, "dtmf": keys, "type": "INFO"}
        if via == "notify":
            sent = await self.emu.calls._send(call, "notifyDtmf", [payload])
        else:
            sent = await self.emu.calls._send(call, "OnDataEvent", [{"payload": payload}])
        return {"callId": call.id, "relayed": sent, "via": via}

    async def restart(self, body, query):
        abort = _flag(body, "abort", False)
        sessions = body.get("sessions", self.emu.settings.restart_sessions)
        if sessions not in RESTART_SESSION_MODES:
            raise ApiError(400, "'sessions' must be " + " or ".join(RESTART_SESSION_MODES))
        moment = time.time()
        kept = await self.emu.restart(abort=abort, keep_sessions=sessions == "keep")
        return {"restarted": True, "time": moment, "sessions": sessions, "kept": kept}

    async def undeliverable(self, body, query):
        try:
            since = float(query.get("since", 0))
        except ValueError:
            raise ApiError(400, "'since' must be a number (epoch seconds)") from None
        return self.emu.delivery.view(query.get("login"), since)

    async def attempts(self, body, query):
        try:
            since = float(query.get("since", 0))
        except ValueError:
            raise ApiError(400, "'since' must be a number (epoch seconds)") from None
        view = self.emu.admission.view(since)
        if query.get("log") == "0":
            del view["attempts"]
        return view

    # -- faults and node down/up (wcsemu.faults, wcsemu.listener) --------------------------------

    async def get_faults(self, body, query):
        return self.emu.faults.view()

    async def set_faults(self, body, query):
        try:
            self.emu.faults.update(body)
        except ValueError as error:
            raise ApiError(400, str(error)) from None
        return self.emu.faults.view()

    async def down(self, body, query):
        forget = _flag(body, "forget", False)
        moment = time.time()
        await self.emu.listener.go_down(forget)
        return {"down": True, "forget": forget, "time": moment}

    async def up(self, body, query):
        await self.emu.listener.come_up(self.emu.settings.host)
        return {"down": False, "time": time.time()}

    async def tokens(self, body, query):
        return self.emu.tokens.view()
