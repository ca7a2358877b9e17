"""Which tokens clients present, and whether this node ever issued them (GET /tokens).

With `--name NAME` every token this node issues starts with `NAME.`, so a token presented here that
lacks the prefix was issued by another node: a client that failed over and showed a token to the
wrong server. A restarted node (same name) still recognises the tokens of its earlier life as its
own (`own_unknown`: its own, but no longer valid). Without a name only `known`/`unknown` are counted.
"""
from __future__ import annotations

import logging
from typing import Any, Dict, Optional

from . import model

log = logging.getLogger("wcsemu.tokens")


def set_node_name(name: Optional[str]) -> None:
    """Makes every token issued from now on start with `name.` (None: bare tokens)."""
    model.TOKEN_PREFIX = f"{name}." if name else ""


class TokenLedger:
    """Counts presented tokens: known (a live session), own but unknown, foreign (another node's)."""

    def __init__(self, name: Optional[str]):
        self.name = name
        self.counts = {"presented": 0, "known": 0, "own_unknown": 0, "foreign": 0}
        self.foreign_examples: list = []

    def presented(self, token: str, known: bool) -> None:
        """Records one `connection` that carried `token`."""
        self.counts["presented"] += 1
        if known:
            self.counts["known"] += 1
        elif self.name and not token.startswith(f"{self.name}."):
            self.counts["foreign"] += 1
            if len(self.foreign_examples) < 5:
                self.foreign_examples.append(token.split(".")[0] + ".…")
            log.warning("a token issued by another node (%s.…) was presented here", token.split(".")[0])
        else:
            self.counts["own_unknown"] += 1

    def view(self) -> Dict[str, Any]:
        return {"name": self.name, **self.counts, "foreign_issuers": list(self.foreign_examples)}
