"""Out-of-band push for an incoming call to a detached keepAlive session (protocol doc §8).

The push JSON is exactly `{"id": callId, "uuid": uuid, "handle": caller}` (the iOS VoIP payload keys).
It goes to every configured target: an HTTP POST to --push-url and/or --push-command run via /bin/sh
with the JSON on stdin. Every push is recorded (GET /pushes) with the outcome of each delivery.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List

log = logging.getLogger("wcsemu.push")

HTTP_TIMEOUT = 5.0
COMMAND_TIMEOUT = 10.0


class PushSender:
    """Records and delivers pushes."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.records: List[Dict[str, Any]] = []

    def send(self, call, session) -> Dict[str, Any]:
        """Records a push for `call` and starts its deliveries in the background; returns the record."""
        payload = {"id": call.id, "uuid": call.uuid, "handle": call.caller}
        record = {**payload, "callId": call.id, "login": session.login, "session": session.id,
                  "time": time.time(), "deliveries": []}
        self.records.append(record)
        body = json.dumps(payload).encode()
        settings = self.emulator.settings
        log.info("push for call %s to login %s", call.id, session.login)
        targets = int(bool(settings.push_url)) + int(bool(settings.push_command))
        if targets == 0:
            self.emulator.delivery.on_push_outcome(call, record, 0)
        if settings.push_url:
            asyncio.create_task(self._delivered(call, record, targets, self._post(settings.push_url, body, record)))
        if settings.push_command:
            asyncio.create_task(self._delivered(call, record, targets, self._run(settings.push_command, body, record)))
        return record

    async def _delivered(self, call, record: Dict[str, Any], targets: int, delivery) -> None:
        """Runs one delivery; once the last one finished, tells the delivery ledger how they went."""
        await delivery
        if len(record["deliveries"]) == targets:
            self.emulator.delivery.on_push_outcome(call, record, targets)

    async def _post(self, url: str, body: bytes, record: Dict[str, Any]) -> None:
        def post() -> Dict[str, Any]:
            headers = {"Content-Type": "application/json", **(self.emulator.settings.push_headers or {})}
            request = urllib.request.Request(url, data=body, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
                    return {"target": "url", "ok": 200 <= response.status < 300, "status": response.status}
            except urllib.error.HTTPError as error:
                return {"target": "url", "ok": False, "status": error.code}
            except (urllib.error.URLError, OSError, ValueError) as error:
                return {"target": "url", "ok": False, "error": str(error)}
        outcome = await asyncio.get_running_loop().run_in_executor(None, post)
        log.info("push %s via URL: %s", record["id"], outcome)
        record["deliveries"].append(outcome)

    async def _run(self, command: str, body: bytes, record: Dict[str, Any]) -> None:
        try:
            process = await asyncio.create_subprocess_shell(
                command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                stderr=None)
            try:
                await asyncio.wait_for(process.communicate(body), COMMAND_TIMEOUT)
                outcome = {"target": "command", "ok": process.returncode == 0, "exit": process.returncode}
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
                outcome = {"target": "command", "ok": False, "error": "timeout"}
        except OSError as error:
            outcome = {"target": "command", "ok": False, "error": str(error)}
        log.info("push %s via command: %s", record["id"], outcome)
        record["deliveries"].append(outcome)
