#!/usr/bin/python3
"""A tiny stand-in for an ntfy server, for testing examples/push/ntfy-subscribe.sh.

It does the two things the script relies on, the way ntfy does them:
  POST /TOPIC          publishes the request body as a message on TOPIC
  GET  /TOPIC/json     streams the topic as JSON lines: an "open" event, then one
                       {"id","time","event":"message","topic","message"} per published message,
                       and a "keepalive" event every few seconds; with ?since=ID first the cached
                       messages published after ID (all of them for an unknown ID or since=all)
and, for tests, GET /health -> {"subscribers": {TOPIC: n}}.
Listens on 127.0.0.1 only; prints one JSON line {"port": N} on stdout when ready.
"""
import json
import queue
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SUBSCRIBERS = {}  # topic -> list of queue.Queue
HISTORY = {}  # topic -> list of message events, oldest first (ntfy's message cache)


def event(kind, topic, message=None):
    e = {"id": secrets.token_hex(6), "time": int(time.time()), "event": kind, "topic": topic}
    if message is not None:
        e["message"] = message
    return e


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        sys.stderr.write("ntfy-fixture: " + (fmt % args) + "\n")

    def answer(self, status, body):
        data = (json.dumps(body) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            with LOCK:
                counts = {t: len(q) for t, q in SUBSCRIBERS.items()}
            return self.answer(200, {"subscribers": counts})
        path, _, query = self.path.partition("?")
        since = dict(p.partition("=")[::2] for p in query.split("&") if p).get("since")
        parts = path.strip("/").split("/")
        if len(parts) != 2 or parts[1] != "json":
            return self.answer(404, {"error": "not found"})
        topic = parts[0]
        inbox = queue.Queue()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
        self.end_headers()
        try:
            self.write_line(event("open", topic))
            with LOCK:
                SUBSCRIBERS.setdefault(topic, []).append(inbox)
                cached = list(HISTORY.get(topic, []))
            if since is not None:
                ids = [m["id"] for m in cached]
                start = ids.index(since) + 1 if since in ids else 0
                for item in cached[start:]:
                    self.write_line(item)
            while True:
                try:
                    item = inbox.get(timeout=2)
                except queue.Empty:
                    item = event("keepalive", topic)
                self.write_line(item)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with LOCK:
                if inbox in SUBSCRIBERS.get(topic, []):
                    SUBSCRIBERS[topic].remove(inbox)

    def write_line(self, obj):
        self.wfile.write((json.dumps(obj) + "\n").encode())
        self.wfile.flush()

    def do_POST(self):
        topic = self.path.strip("/")
        if not topic or "/" in topic:
            return self.answer(404, {"error": "not found"})
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        message = event("message", topic, body)
        with LOCK:
            HISTORY.setdefault(topic, []).append(message)
            for inbox in SUBSCRIBERS.get(topic, []):
                inbox.put(message)
        self.answer(200, message)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
