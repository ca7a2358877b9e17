"""WCS frames: `{"message": name, "data": [args...]}` text frames, decoding, encoding and redaction."""
from __future__ import annotations

import json
from typing import Any, List, Optional, Tuple

#: Keys whose values never appear in logs or in the control API's frame log.
SECRET_KEYS = ("sipPassword", "authToken")


class FrameError(ValueError):
    """A client frame that is not a valid WCS frame."""


def decode(text: str) -> Tuple[str, Any]:
    """Parses a client text frame into (message name, first argument).

    `data` may be missing, `[null]`, `[obj]` or (tolerated) a bare object; the first argument is
    returned (None when absent). Raises FrameError for anything else.
    """
    try:
        frame = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise FrameError(f"not JSON: {error}") from None
    if not isinstance(frame, dict):
        raise FrameError("frame is not a JSON object")
    name = frame.get("message")
    if not isinstance(name, str) or not name:
        raise FrameError("missing or non-string 'message'")
    data = frame.get("data")
    if data is None:
        return name, None
    if isinstance(data, list):
        return name, data[0] if data else None
    if isinstance(data, dict):
        return name, data
    raise FrameError("'data' is neither an array nor an object")


def encode(name: str, args: Optional[List[Any]] = None) -> str:
    """Builds a server frame. The `data` array is always present (`[null]` when there are no args)."""
    return json.dumps({"message": name, "data": args if args else [None]}, separators=(",", ":"))


def redact(value: Any) -> Any:
    """A copy of a JSON value with every secret key's value replaced by "***"."""
    if isinstance(value, dict):
        return {k: ("***" if k in SECRET_KEYS and v is not None else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def summary(name: str, args: Any, limit: int = 300) -> str:
    """A short, secret-free one-line rendering of a frame for the log."""
    text = json.dumps(redact(args), separators=(",", ":"))
    if len(text) > limit:
        text = text[:limit] + "..."
    return f"{name} {text}"
