"""The ids the scripted agent gives its tool calls: ``toolu_`` + 24 hex characters from a key, never reused.

One home for the rule every scenario follows: an id is a digest of the scenario's own key (seed,
step, position in the conversation), so the same request gets the same bytes on every run, and a
salt moves it off any id already in the conversation or taken by a part the server dropped.
Deliberately left out: the API's real id format beyond its prefix and alphabet.
"""

from __future__ import annotations

import hashlib


def tool_id(key: str, taken: set[str]) -> str:
    """A ``toolu_`` id derived from ``key``, salted until it is not in ``taken``."""
    salt = 0
    while True:
        candidate = "toolu_" + hashlib.sha256(f"{key}:{salt}".encode()).hexdigest()[:24]
        if candidate not in taken:
            return candidate
        salt += 1
