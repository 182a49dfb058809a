"""Secrets in a replayed session, found by a secret scanner and replaced before anything is shown or saved.

A session file is the user's own, and a tool output in it can hold a secret (an ``env`` dump, a config
file the agent read, a connection URL in a log). The terminal, the saved contexts and the report show
``[redacted <kind>]`` instead. Detection is Yelp's detect-secrets: every detector it ships (keyword
assignments of any length, credentials in URLs, AWS keys, private keys, JWTs and the tokens of GitHub,
GitLab, Slack, Stripe, OpenAI, npm, PyPI, SendGrid, Twilio and others) runs over the text as it is,
and its keyword detector over each line that names a secret, with the rules it uses for config files
(value quoted or not) and for code (value quoted). A value it reports is replaced where it was found
and wherever else the same value appears in the same text or message list.

``OWN`` holds the course's patterns for what the library lacks (``MISSES`` in the tests says what
is still missed). Deliberately left out: detect-secrets' entropy detectors and its public-IP detector,
which would hide the hashes, ids and addresses a reader needs, and verifying a secret with its
provider, which would need the network.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters import heuristic
from detect_secrets.plugins import keyword
from detect_secrets.plugins.base import RegexBasedDetector

LEFT_OUT = ("Base64 High Entropy String", "Hex High Entropy String", "Public IP (ipv4)")
# secret type -> the detector's patterns (detect-secrets' own, e.g. "AWS Access Key")
DETECTORS = {
    kind: tuple(cls.denylist)
    for kind, cls in sorted(get_mapping_from_secret_type_to_class().items())
    if kind not in LEFT_OUT and issubclass(cls, RegexBasedDetector)
}
KEYWORD = keyword.KeywordDetector.secret_type
# the keyword detector's patterns for config files and for code -> the group that holds the value
KEYWORD_RULES = {**keyword.CONFIG_DENYLIST_REGEX_TO_GROUP, **keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP}
NAMES_A_SECRET = re.compile(keyword.DENYLIST_REGEX, re.IGNORECASE)  # a line the keyword rules may match
PRIVATE_KEY = "Private Key"
PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")
OWN = {  # what detect-secrets 1.5 does not detect; a named group "value" is what is replaced
    "anthropic": re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}"),
    "bearer token": re.compile(r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)"),
    "basic auth header": re.compile(r"(?i)authorization:\s*basic\s+(?P<value>[A-Za-z0-9+/]{8,}=*)"),
    # its keyword list has no "token" or bare "key" (GITHUB_TOKEN=..., "access_token": "...",
    # X_API_KEY=...): a value with a digit in it, as tokens have, so that sort_key: name stays
    "token assignment": re.compile(
        r"(?i)(?:token|[a-z0-9]_key|apikey)[\"']?\s*(?::=?|=>?)\s*[\"']?"
        r"(?P<value>(?=[^\s\"',;]*\d)[A-Za-z0-9][^\s\"',;]{7,})"
    ),
    # RFC 3986 lets a password hold ! $ & ' ( ) * + , ; = which its basic-auth pattern refuses
    "url credentials": re.compile(r"://[^\s/@:]+:(?P<value>[^\s/@]+)@"),
    "github token": re.compile(r"github_pat_[A-Za-z0-9_]{30,}"),  # fine-grained: it knows ghp_ and the like
    "npm token": re.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),  # it knows them only in .npmrc
    "hugging face token": re.compile(r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])"),
    "google api key": re.compile(r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
}
# a value starting with one of these, or a number of at most three digits, is a setting: a real
# session's security audit printed PasswordRequired: False, MinimumPasswordLength: 0 (No minimum!)
SETTING_WORDS = {"true", "false", "yes", "no", "none", "null", "nil", "enabled", "disabled", "required"}
MARK = "[redacted {}]"
SHORTEST_VALUE = 8  # a group this short is part of a token's shape ("ghp"), not its secret
EDGES = " \t\r\n\"'`=:,;"  # what a detector's pattern may take in around a value


def _span(match: re.Match) -> tuple[int, int]:
    """What to replace of a detector's match: the group it reports when that is the secret, else all."""
    start, end = match.span()
    groups = [i for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    if "value" in match.re.groupindex:
        start, end = match.span("value")
    elif groups and len(match.group(groups[-1])) >= SHORTEST_VALUE:
        start, end = match.span(groups[-1])
    text = match.string
    while start < end and text[start] in EDGES:
        start += 1
    while end > start and text[end - 1] in EDGES:
        end -= 1
    return start, end


def _a_setting(value: str) -> bool:
    """A value that says how a secret is set, not what it is: a yes/no, a null, a small count."""
    first = value.split(maxsplit=1)[0].strip("*`'\"()[]{},;.!").lower() if value.strip() else ""
    return first in SETTING_WORDS or (first.isdigit() and len(first) <= 3)


def _kept(value: str, line: str) -> bool:
    """detect-secrets' own heuristics (not a reference, a template, a $VARIABLE or punctuation alone),
    and not a setting's value (``PasswordRequired: False``, ``MaxPasswordAge: 42 days``)."""
    return not (
        _a_setting(value)
        or heuristic.is_indirect_reference(line)
        or heuristic.is_templated_secret(value)
        or heuristic.is_prefixed_with_dollar_sign(value)
        or heuristic.is_not_alphanumeric_string(value)
    )


def _keyword_spans(text: str) -> list[tuple[int, int, str]]:
    """Values the keyword detector finds, line by line, as (start, end, kind) in ``text``."""
    found, offset = [], 0
    for line in text.split("\n"):
        if NAMES_A_SECRET.search(line):
            for rule, group in KEYWORD_RULES.items():
                for match in rule.finditer(line):
                    if _kept(match.group(group), line):
                        start, end = match.span(group)
                        found.append((offset + start, offset + end, KEYWORD))
        offset += len(line) + 1
    return found


@lru_cache(maxsize=4096)  # a message list's strings recur across strategies and passes
def spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """Every secret in ``text`` as (start, end, kind), sorted, overlaps merged (the first kind kept)."""
    found = _keyword_spans(text)
    for kind, patterns in [*DETECTORS.items(), *((k, (p,)) for k, p in OWN.items())]:
        for pattern in patterns:
            for match in pattern.finditer(text):
                start, end = _span(match)
                if kind == PRIVATE_KEY:  # it finds the header: the key is the block from there to END
                    start = len(text[:start].rstrip("-"))
                    close = PEM_END.search(text, end)
                    end = close.end() if close else len(text)
                if end > start:
                    found.append((start, end, kind))
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(found):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2])
        else:
            merged.append((start, end, kind))
    return tuple(merged)


def secrets_in(text: str) -> dict[str, str]:
    """The secret values in ``text`` long enough to look for elsewhere: value -> kind."""
    found = ((text[s:e], kind) for s, e, kind in spans(text))
    return {value: kind for value, kind in found if len(value) >= SHORTEST_VALUE and "\n" not in value}


def _replace_known(text: str, known: dict[str, str]) -> str:
    """``text`` with every occurrence of a known secret value replaced (longest values first)."""
    if not known:
        return text
    return _alternation(tuple(sorted(known, key=len, reverse=True))).sub(
        lambda m: MARK.format(known[m.group(0)].lower()), text
    )


@lru_cache(maxsize=64)
def _alternation(values: tuple[str, ...]) -> re.Pattern:
    """One pattern matching any of ``values`` (longest first, so a value inside another loses)."""
    return re.compile("|".join(map(re.escape, values)))


def redact(value: str, known: dict[str, str] | None = None) -> str:
    """``value`` with every secret the scanner finds, and every one of ``known``, replaced by a marker."""
    parts, last = [], 0
    for start, end, kind in spans(value):
        parts += [value[last:start], MARK.format(kind.lower())]
        last = end
    parts.append(value[last:])
    return _replace_known("".join(parts), {**secrets_in(value), **(known or {})})


def strings_in(value: Any):
    """Every string of a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_in(k)
            yield from strings_in(v)


def redact_json(value: Any, known: dict[str, str] | None = None) -> Any:
    """A JSON-like value with every string redacted, and a secret found in one string replaced in all."""
    if known is None:
        known = {}
        for text in strings_in(value):
            known.update(secrets_in(text))
    if isinstance(value, str):
        return redact(value, known)
    if isinstance(value, list):
        return [redact_json(v, known) for v in value]
    if isinstance(value, dict):
        return {redact_json(k, known): redact_json(v, known) for k, v in value.items()}
    return value
