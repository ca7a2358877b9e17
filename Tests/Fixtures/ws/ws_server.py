#!/usr/bin/python3
"""WebSocket test server for the transport tests (python3-websockets 10.4).

Binds to a loopback address on an ephemeral port and prints one JSON line,
{"port": N}, once it accepts connections. Modes:
  echo          echo every text and binary message back
  close         right after the upgrade, close with --close-code / --close-reason
  drop          right after the upgrade, drop the TCP connection without a close frame
  never-upgrade accept TCP and read, but never answer the HTTP upgrade
  binary        send one binary frame of --binary-size bytes, then the text "done", then echo
  request       send {"host": <Host header>, "path": <request path>} as text, then echo
  reject        answer the upgrade with HTTP 403
  deaf          complete the upgrade by hand, then ignore everything (never answers a close)
With --cert/--key it serves wss:// (TLS).
"""
import argparse
import asyncio
import base64
import hashlib
import http
import json
import signal
import ssl
import sys

import websockets


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="echo",
                        choices=["echo", "close", "drop", "never-upgrade", "binary", "request", "reject",
                                 "deaf"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--close-code", type=int, default=4001)
    parser.add_argument("--close-reason", default="bye")
    parser.add_argument("--binary-size", type=int, default=1000)
    return parser.parse_args()


async def echo(websocket):
    async for message in websocket:
        await websocket.send(message)


def make_handler(args):
    async def handler(websocket, path=None):
        if args.mode == "close":
            await websocket.close(code=args.close_code, reason=args.close_reason)
        elif args.mode == "drop":
            websocket.transport.abort()
        elif args.mode == "request":
            await websocket.send(json.dumps({"host": websocket.request_headers.get("Host"),
                                             "path": websocket.path}))
            await echo(websocket)
        elif args.mode == "binary":
            await websocket.send(bytes(args.binary_size))
            await websocket.send("done")
            await echo(websocket)
        else:
            try:
                await echo(websocket)
            except websockets.ConnectionClosed:
                pass
    return handler


async def silent_tcp(reader, writer):
    # Accept the connection, swallow whatever arrives, never answer.
    try:
        while await reader.read(4096):
            pass
    finally:
        writer.close()


async def deaf(reader, writer):
    # A minimal RFC 6455 upgrade, then silence: frames (a close included) are read and dropped.
    request = await reader.readuntil(b"\r\n\r\n")
    key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    await writer.drain()
    await silent_tcp(reader, writer)


async def main():
    args = parse_args()
    if args.host not in ("127.0.0.1", "::1", "localhost"):
        sys.exit("refusing to bind a non-loopback address")
    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    if args.mode in ("never-upgrade", "deaf"):
        handler = silent_tcp if args.mode == "never-upgrade" else deaf
        server = await asyncio.start_server(handler, args.host, 0, ssl=tls)
    else:
        async def process_request(path, headers):
            if args.mode == "reject":
                return http.HTTPStatus.FORBIDDEN, [], b"forbidden\n"
            return None
        server = await websockets.serve(make_handler(args), args.host, 0, ssl=tls,
                                        compression=None, max_size=None,
                                        process_request=process_request)
    port = server.sockets[0].getsockname()[1]
    print(json.dumps({"port": port}), flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    # Test runners start children with SIGTERM blocked; make it work again.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
