"""Command-line flags and the run-time settings of the emulator."""
from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Callable, Dict, Optional

from .converters import argparse_type as _arg, choice as _choice, integer_at_least
from .impair import parse as parse_impairment
from .variant_settings import VARIANT_FIELDS, add_variant_arguments, variant_values

BAD_TOKEN_MODES = ("fail", "new-session", "close")
DETACHED_CALL_MODES = ("keep", "end")
MEDIA_MODES = ("aiortc", "fixed")
OPUS_FEC_MODES = ("off", "webrtc")  # wcsemu.opus_fec
#: How the emulated server relays a far end's SIP INFO DTMF to the client (POST /sip-dtmf): inferred,
#: public sources do not say (protocol doc §10 q.11). `notify`: a `notifyDtmf {callId, dtmf, type}`
#: message; `data`: an `OnDataEvent` whose payload is {callId, dtmf, type}; `off`: not at all.
SIP_INFO_DTMF_MODES = ("notify", "data", "off")


@dataclasses.dataclass
class Settings:
    """Everything that configures the emulator. Fields in RUNTIME_FIELDS may change while it runs."""

    host: str = "127.0.0.1"
    port: int = 0
    control_port: int = 0
    users: Dict[str, str] = dataclasses.field(default_factory=dict)
    keepalive_ttl: float = 3600.0
    ping_interval: float = 5.0
    missed_pongs: int = 10
    bad_token: str = "fail"
    ring_timeout: float = 30.0
    answer_delay: float = 0.3
    detached_calls: str = "keep"
    push_url: Optional[str] = None
    push_command: Optional[str] = None
    #: Extra HTTP headers of each push_url POST (a push relay's credentials), e.g. {"X-Secret": "..."}.
    push_headers: Optional[Dict[str, str]] = None
    tls_cert: Optional[str] = None
    tls_key: Optional[str] = None
    media: str = "aiortc"
    media_source: str = "tone:440"
    record_dir: Optional[str] = None
    ice_timeout: float = 15.0
    ice_address: str = "127.0.0.1"
    impair: Optional[str] = None
    opus_fec: str = "off"
    sip_info_dtmf: str = "notify"
    max_connections_per_second: int = 0
    verbose: bool = False
    #: The node's name (`--name`): its tokens start with `NAME.` (wcsemu.tokens).
    name: Optional[str] = None
    # server variants (variant_settings.py; defaults = standard behaviour)
    resume_registered: str = "no"
    resume_token: str = "same"
    registered_order: str = "after"
    resume_drop_ms: Optional[float] = None
    resume_drop_count: int = 0
    detached_finish: str = "silent"
    connection_delay: float = 0.0
    ice_lite: bool = False
    session_id: str = "send"
    restart_sessions: str = "forget"
    # call variants (call_variants.py)
    duplicate_notify_ms: Optional[float] = None
    answered_elsewhere: Optional[float] = None
    call_ids: str = "uuid"
    display_names: str = "plain"

    def public_view(self) -> Dict[str, Any]:
        """The settings as the control API shows them (user passwords are not shown)."""
        view = {name: getattr(self, name) for name in RUNTIME_FIELDS}
        view.update(users=sorted(self.users), media=self.media, record_dir=self.record_dir, name=self.name,
                    scheme="wss" if self.tls_cert else "ws")
        return view

    def update(self, changes: Dict[str, Any]) -> None:
        """Applies run-time changes (control API POST /config); raises ValueError on any bad key or value.

        Nothing is changed unless every entry is valid.
        """
        parsed = {}
        for key, value in changes.items():
            converter = RUNTIME_FIELDS.get(key)
            if converter is None:
                raise ValueError(f"unknown or read-only setting: {key}")
            try:
                parsed[key] = converter(value)
            except (TypeError, ValueError) as error:
                raise ValueError(f"bad value for {key}: {error}") from None
        for key, value in parsed.items():
            setattr(self, key, value)


def _non_negative(value: Any) -> float:
    number = float(value)
    if number != number or number < 0:
        raise ValueError("must be a number >= 0")
    return number


def _positive(value: Any) -> float:
    number = _non_negative(value)
    if number == 0:
        raise ValueError("must be > 0")
    return number


_count = integer_at_least(1)


def _rate(value: Any) -> int:
    if isinstance(value, bool) or int(value) != float(value) or int(value) < 0:
        raise ValueError("must be an integer >= 0 (0 = no limit)")
    return int(value)


def _optional_text(value: Any) -> Optional[str]:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError("must be a string or null")
    return value


def _optional_headers(value: Any) -> Optional[Dict[str, str]]:
    if value is None or value == {}:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and k and isinstance(v, str)
                                              and "\n" not in k + v and "\r" not in k + v and ":" not in k
                                              for k, v in value.items()):
        raise ValueError("must be an object of header names to string values, or null")
    return dict(value)


def _media_source(value: Any) -> str:
    if not isinstance(value, str) or not is_valid_media_source(value):
        raise ValueError("must be tone:<hz>, file:<path.wav> or silence")
    return value


def _impairment(value: Any) -> Optional[str]:
    """Validates an impairment spec (wcsemu.impair); returns its canonical text, None for none."""
    if value is not None and not isinstance(value, str):
        raise ValueError("must be a string like loss=5,jitter=30,seed=1, or null")
    impairment = parse_impairment(value)
    return impairment.spec() if impairment is not None and impairment.active else None


def is_valid_media_source(text: str) -> bool:
    """True for `silence`, `tone:<positive hz>` and `file:<path>`."""
    if text == "silence":
        return True
    if text.startswith("tone:"):
        try:
            return float(text[5:]) > 0
        except ValueError:
            return False
    return text.startswith("file:") and len(text) > 5


#: Settings that POST /config may change, with their validating converters.
RUNTIME_FIELDS: Dict[str, Callable[[Any], Any]] = {
    "keepalive_ttl": _non_negative,
    "ping_interval": _positive,
    "missed_pongs": _count,
    "bad_token": _choice(BAD_TOKEN_MODES),
    "ring_timeout": _positive,
    "answer_delay": _non_negative,
    "detached_calls": _choice(DETACHED_CALL_MODES),
    "push_url": _optional_text,
    "push_command": _optional_text,
    "push_headers": _optional_headers,
    "media_source": _media_source,
    "ice_timeout": _positive,
    "impair": _impairment,
    "opus_fec": _choice(OPUS_FEC_MODES),
    "sip_info_dtmf": _choice(SIP_INFO_DTMF_MODES),
    "max_connections_per_second": _rate,
    **VARIANT_FIELDS,
}


def _user(text: str) -> tuple:
    login, sep, password = text.partition(":")
    if not sep or not login:
        raise argparse.ArgumentTypeError("expected LOGIN:PASSWORD")
    return login, password


def read_users_file(path: str) -> Dict[str, str]:
    """Reads LOGIN:PASSWORD lines (blank lines and lines starting with # are skipped)."""
    users = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            login, sep, password = line.partition(":")
            if not sep or not login:
                raise ValueError(f"line {number}: expected LOGIN:PASSWORD")
            users[login] = password
    return users


def _node_name(text: str) -> str:
    if not text or len(text) > 32 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in text):
        raise argparse.ArgumentTypeError("a name of 1-32 letters, digits, - or _")
    return text


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be 0..65535")
    return port


def build_parser() -> argparse.ArgumentParser:
    """The emulator's command-line parser."""
    p = argparse.ArgumentParser(
        prog="wcs_emulator.py",
        description="Loopback emulator of a Flashphoner WCS (WebSocket signaling + fake SIP side).")
    p.add_argument("--host", default="127.0.0.1", help="address of both listeners (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=0, help="WebSocket port, 0 = pick a free one")
    p.add_argument("--control-port", type=_port, default=0, help="HTTP control API port, 0 = pick")
    p.add_argument("--user", type=_user, action="append", default=[], metavar="LOGIN:PASSWORD",
                   help="a SIP user the fake PBX knows (repeatable)")
    p.add_argument("--users-file", default=None, metavar="FILE",
                   help="more SIP users, one LOGIN:PASSWORD per line (keeps passwords out of argv)")
    p.add_argument("--keepalive-ttl", type=_arg(_non_negative), default=3600.0, metavar="SECONDS",
                   help="how long a detached keepAlive session is kept (default 3600)")
    p.add_argument("--ping-interval", type=_arg(_positive), default=5.0, metavar="SECONDS",
                   help="server ping period (default 5)")
    p.add_argument("--missed-pongs", type=_arg(_count), default=10, metavar="N",
                   help="close the socket after N unanswered pings in a row (default 10)")
    p.add_argument("--bad-token", choices=BAD_TOKEN_MODES, default="fail",
                   help="reply to an unknown authToken: fail + close, a new session, or a bare close "
                        "(default fail)")
    p.add_argument("--ring-timeout", type=_arg(_positive), default=30.0, metavar="SECONDS",
                   help="an unanswered incoming call is cancelled by the caller after this (default 30)")
    p.add_argument("--answer-delay", type=_arg(_non_negative), default=0.3, metavar="SECONDS",
                   help="default delay before a callee reacts to an outgoing call (default 0.3)")
    p.add_argument("--detached-calls", choices=DETACHED_CALL_MODES, default="keep",
                   help="what happens to answered calls when a keepAlive session's socket goes (default keep)")
    p.add_argument("--push-url", default=None, metavar="URL", help="HTTP POST each push JSON here")
    p.add_argument("--push-command", default=None, metavar="CMD",
                   help="run CMD via /bin/sh with each push JSON on stdin")
    p.add_argument("--tls-cert", default=None, metavar="FILE", help="PEM certificate: serve wss")
    p.add_argument("--tls-key", default=None, metavar="FILE", help="PEM private key for --tls-cert")
    p.add_argument("--media", choices=MEDIA_MODES, default="aiortc",
                   help="aiortc = real WebRTC leg (default); fixed = canned SDP, no media")
    p.add_argument("--media-source", type=_arg(_media_source), default="tone:440",
                   metavar="tone:HZ|file:PATH.wav|silence", help="what the emulator plays into calls")
    p.add_argument("--record-dir", default=None, metavar="DIR",
                   help="where received audio is recorded as <callId>.wav (default: a temp dir)")
    p.add_argument("--ice-timeout", type=_arg(_positive), default=15.0, metavar="SECONDS",
                   help="a WebRTC leg not connected this long after the SDP exchange fails (default 15)")
    p.add_argument("--ice-address", default="127.0.0.1", metavar="ADDR",
                   help="the one address the aiortc engine's ICE uses (default 127.0.0.1)")
    p.add_argument("--impair", type=_arg(_impairment), default=None, metavar="loss=P,jitter=MS[,delay=MS][,seed=N]",
                   help="deterministic loss and delay on RTP/RTCP of the WebRTC leg, both ways (default none)")
    p.add_argument("--sip-info-dtmf", choices=SIP_INFO_DTMF_MODES, default="notify",
                   help="how a far end's SIP INFO DTMF reaches the client (POST /sip-dtmf): notifyDtmf, "
                        "OnDataEvent, or off (inferred; see README)")
    p.add_argument("--opus-fec", choices=OPUS_FEC_MODES, default="off",
                   help="webrtc = the WebRTC leg sends Opus in-band FEC when the client's SDP asks for it "
                        "(useinbandfec=1), at the loss its RTCP reports, as libwebrtc does; off = aiortc 1.4 as is (default)")
    p.add_argument("--max-connections-per-second", type=_arg(_rate), default=0, metavar="N",
                   help="admit at most N new WebSockets per second; more are closed with 1013 (default 0 = no limit)")
    p.add_argument("--name", type=_node_name, default=None, metavar="NAME",
                   help="the node's name: every token it issues starts with NAME., so GET /tokens can count "
                        "tokens issued by another node (a client that failed over to the wrong server)")
    p.add_argument("-v", "--verbose", action="store_true", help="log every frame")
    add_variant_arguments(p)
    return p


def parse_settings(argv) -> Settings:
    """Parses the command line into Settings; exits with a usage error on bad flags."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    users = dict(args.user)
    if args.users_file:
        try:
            users.update(read_users_file(args.users_file))
        except (OSError, ValueError) as error:
            parser.error(f"--users-file: {error}")
    return Settings(
        host=args.host, port=args.port, control_port=args.control_port, users=users,
        keepalive_ttl=args.keepalive_ttl, ping_interval=args.ping_interval,
        missed_pongs=args.missed_pongs, bad_token=args.bad_token, ring_timeout=args.ring_timeout,
        answer_delay=args.answer_delay, detached_calls=args.detached_calls,
        push_url=args.push_url, push_command=args.push_command,
        tls_cert=args.tls_cert, tls_key=args.tls_key, media=args.media,
        media_source=args.media_source, record_dir=args.record_dir, ice_timeout=args.ice_timeout,
        ice_address=args.ice_address,
        impair=args.impair, opus_fec=args.opus_fec, sip_info_dtmf=args.sip_info_dtmf, max_connections_per_second=args.max_connections_per_second, verbose=args.verbose,
        name=args.name,
        **variant_values(args))
