"""Value converters shared by the flag parser and POST /config (settings.py, variant_settings.py)."""
from __future__ import annotations

import argparse
from typing import Any, Callable


def choice(options) -> Callable[[Any], str]:
    """A converter that accepts exactly one of `options` (ValueError otherwise)."""
    def convert(value: Any) -> str:
        if value not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return value
    return convert


def integer_at_least(minimum: int) -> Callable[[Any], int]:
    """A converter for whole numbers >= minimum (booleans and fractions refused)."""
    def convert(value: Any) -> int:
        if isinstance(value, bool) or int(value) != float(value) or int(value) < minimum:
            raise ValueError(f"must be an integer >= {minimum}")
        return int(value)
    return convert


def argparse_type(converter: Callable[[Any], Any]) -> Callable[[str], Any]:
    """Adapts a settings converter to argparse (ValueError becomes a usage error)."""
    def convert(text: str) -> Any:
        try:
            return converter(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return convert
