"""What an importer could not take as it was: each problem names the file, the place and the rule.

A problem is reported, never raised: the record is skipped (and counted) or repaired (a renamed id,
a marked error result), and the replay goes on. ``NotASession`` is the one error: the file is not a
session of any known format, and the command exits with status 2 naming the file and why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from compaction.importers.nesting import MAX_DEPTH

# rule -> what happened to the record
RULES = {
    "not_json": "a line that is not JSON was skipped",
    "truncated_last_line": "the last line ends mid-record (the file was cut while being written); skipped",
    "unknown_record": "a record of a type this importer does not know was skipped",
    "unknown_kept": "a record of a type this importer does not know was kept as it stands",
    "malformed_record": "a record without a usable message was skipped",
    "unsupported_block": "a content block the Messages API list does not carry was dropped",
    "orphan_tool_result": "a tool result with no call just before it was kept as text",
    "unanswered_tool_use": "a tool call with no recorded result was answered by a marked error result",
    "renamed_id": "a tool-call id the API would refuse (repeated, or outside [a-zA-Z0-9_-]) was renamed",
    "broken_chain": (
        "a parentUuid names no record of the file (or closes a loop); the walk reads on from the record "
        "before it, in file order"
    ),
    "repeated_uuid": "two records share a uuid; links to it follow the later one",
    "leading_assistant": "the session starts with the assistant; a marked user message was put first",
    "too_deep": f"a record nested deeper than {MAX_DEPTH} levels was skipped without parsing it",
    "not_utf8": "bytes that are not UTF-8 were replaced by U+FFFD",
    "lone_surrogate": "half of a UTF-16 surrogate pair (UTF-8 cannot encode it) was replaced by U+FFFD",
}
SKIPPING = ("not_json", "truncated_last_line", "unknown_record", "malformed_record", "too_deep")


@dataclass(frozen=True)
class Problem:
    """One thing an importer repaired or skipped: file, place (``line 12``, ``history[4]``), rule."""

    file: str
    where: str
    rule: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.where}: {self.rule}: {self.detail or RULES.get(self.rule, '')}"

    @property
    def skipped(self) -> bool:
        """True when the record was skipped (not JSON, unknown, malformed), not repaired."""
        return self.rule in SKIPPING


class NotASession(ValueError):
    """The file is not a session of any format the importers read: which file and why."""

    def __init__(self, file: str, reason: str):
        self.file, self.reason = file, reason
        super().__init__(f"{file}: not a session: {reason}")


def json_error(exc: json.JSONDecodeError, *, line: bool = True) -> str:
    """What ``json`` could not parse, and where: ``Expecting value at line 3, column 5``."""
    place = f"line {exc.lineno}, column {exc.colno}" if line else f"column {exc.colno}"
    return f"{re.sub(r'( starting)? at$', '', exc.msg)} at {place}"  # json's own "...at" said once


def not_a_record(record: Any) -> str:
    """Why a parsed line is no record: not an object, or an object without a string ``type``."""
    if not isinstance(record, dict):
        name = {"str": "string", "int": "number", "float": "number", "NoneType": "null"}.get(
            type(record).__name__, type(record).__name__
        )
        return f"not a JSON object but a {name}"
    kind = record.get("type")
    return f"type {kind!r}" if isinstance(kind, str) else "an object without a string 'type'"
