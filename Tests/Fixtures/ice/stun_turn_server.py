#!/usr/bin/python3
"""A minimal STUN/TURN responder on 127.0.0.1 for the ICEAgent gathering tests.

Usage: stun_turn_server.py [--mapped-host IP] [turn_username]
The TURN password is read from stdin (one line) so it never appears in argv. --mapped-host
makes Binding answers claim that IP (same port) as the mapped address, like a NAT would.

It answers, without relaying anything:
  Binding    -> success with the source address (MAPPED-ADDRESS for RFC 3489 requests)
  Allocate   -> 401 with REALM/NONCE, then, when MESSAGE-INTEGRITY verifies with the long-term
                key, success with XOR-RELAYED-ADDRESS = 127.0.0.1:<relay_port> and LIFETIME
  Refresh / CreatePermission / ChannelBind -> success
stdout (JSON lines): {"port": P, "relay_port": R} first, then one line per request:
  {"method": "binding"|"allocate"|..., "from": [host, port], "username": ..., "integrity": "ok"|"bad"|"none"}
"""
import argparse
import json
import signal
import socket
import sys

from aioice import stun
from aioice.turn import make_integrity_key

REALM = "wcs-agent-test"
NONCE = b"0123456789abcdef"


def emit(obj):
    print(json.dumps(obj), flush=True)


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser()
    parser.add_argument("--mapped-host")
    parser.add_argument("username", nargs="?")
    options = parser.parse_args()
    username = options.username
    password = sys.stdin.readline().rstrip("\n") if username else None
    key = make_integrity_key(username, REALM, password) if username else None

    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    relay = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # only reserves the relayed port
    relay.bind(("127.0.0.1", 0))
    emit({"port": server.getsockname()[1], "relay_port": relay.getsockname()[1]})

    while True:
        data, addr = server.recvfrom(4096)
        try:
            request = stun.parse_message(data)
        except ValueError:
            continue
        if request.message_class != stun.Class.REQUEST:
            continue
        integrity = "none"
        if "MESSAGE-INTEGRITY" in request.attributes and key is not None:
            try:
                stun.parse_message(data, integrity_key=key)
                integrity = "ok"
            except ValueError:
                integrity = "bad"
        emit({"method": request.message_method.name.lower(), "from": list(addr),
              "username": request.attributes.get("USERNAME"), "integrity": integrity})

        response = stun.Message(message_method=request.message_method, message_class=stun.Class.RESPONSE,
                                transaction_id=request.transaction_id)
        if request.message_method == stun.Method.BINDING:
            mapped = (options.mapped_host or addr[0], addr[1])
            # libnice sends server-reflexive discovery RFC 3489 style: the cookie field is part
            # of the transaction id. Answer like an RFC 5389 server does for such a request:
            # echo those bytes and use the plain MAPPED-ADDRESS.
            if data[4:8] == stun.COOKIE.to_bytes(4, "big"):
                response.attributes["XOR-MAPPED-ADDRESS"] = mapped
                response.attributes["FINGERPRINT"] = stun.message_fingerprint(bytes(response))
                server.sendto(bytes(response), addr)
            else:
                response.attributes["MAPPED-ADDRESS"] = mapped
                server.sendto(bytes(response)[:4] + data[4:8] + bytes(response)[8:], addr)
            continue
        if integrity != "ok":
            response.message_class = stun.Class.ERROR
            response.attributes["ERROR-CODE"] = (401, "Unauthorized")
            response.attributes["REALM"] = REALM
            response.attributes["NONCE"] = NONCE
            server.sendto(bytes(response), addr)
            continue
        if request.message_method == stun.Method.ALLOCATE:
            response.attributes["XOR-RELAYED-ADDRESS"] = ("127.0.0.1", relay.getsockname()[1])
            response.attributes["XOR-MAPPED-ADDRESS"] = addr
        if request.message_method in (stun.Method.ALLOCATE, stun.Method.REFRESH):
            response.attributes["LIFETIME"] = request.attributes.get("LIFETIME", 600)
        response.add_message_integrity(key)
        server.sendto(bytes(response), addr)


main()
