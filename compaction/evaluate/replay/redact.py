"""Strings shaped like API keys and tokens, replaced before anything is printed or written.

A session file is the user's own, and a tool output in it can hold a key (an ``env`` dump, a
config file read by the agent). The report and the terminal show ``[redacted …]`` instead. The
shapes are the documented prefixes of common providers plus ``Bearer``/``key=`` assignments; a
secret with no recognizable shape is not caught. Deliberately left out: entropy guessing, which
would also hide hashes and ids the reader needs.
"""

from __future__ import annotations

import re
from typing import Any

# name -> pattern; each match is replaced whole (assignments keep their name)
PATTERNS = {
    "anthropic": re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}"),
    "openai": re.compile(r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    "github": re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "aws": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "google": re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    "slack": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "huggingface": re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"),
    "jwt": re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    "bearer": re.compile(r"(?i)(?P<keep>\bbearer\s+)[A-Za-z0-9._~+/-]{20,}=*"),
    "assignment": re.compile(
        r"(?i)(?P<keep>(?:api[_-]?key|secret|token|password|passwd)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]{12,}"
    ),
}
MARK = "[redacted {}]"


def redact(value: str) -> str:
    """``value`` with every key- or token-shaped string replaced by a marker naming its kind."""
    for name, pattern in PATTERNS.items():
        value = pattern.sub(lambda m, name=name: (m.groupdict().get("keep") or "") + MARK.format(name), value)
    return value


def redact_json(value: Any) -> Any:
    """A JSON-like value with ``redact`` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_json(v) for k, v in value.items()}
    return value
