"""What one pass did to a message list, message by message: kept, changed, dropped, added.

``align(before, after)`` lines the two lists up like a text diff (``difflib`` over each message's
JSON): equal messages are kept; of the messages between two kept runs, an ``after`` message that
grew out of a ``before`` one (same role, and it shares a tool id with it or starts with its blocks,
as snip's placeholder is appended to the head's last message) is *changed*, the ``before`` messages
left over are *dropped*, and the ``after`` messages left over are *added* (a summary). Every change
keeps the original message numbers. Lists of equal length are compared place by place, and the
shared head and tail are settled before the diff, so repeated messages keep their own numbers.
Deliberately left out: moves (no layer reorders messages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from compaction.core.messages import blocks, to_json

KINDS = ("same", "changed", "dropped", "added")


@dataclass(frozen=True)
class Change:
    """A run of one kind: ``before`` holds original message numbers, ``after`` positions in the new list."""

    kind: str
    before: range
    after: range


def _ids(message: dict) -> set[str]:
    """The tool ids a message uses or answers."""
    return {
        str(b.get("id") or b.get("tool_use_id"))
        for b in blocks(message)
        if b.get("id") or b.get("tool_use_id")
    }


def grew_from(new: dict, old: dict) -> bool:
    """True when ``new`` is ``old`` rewritten: same role, and a shared tool id or old's blocks first."""
    if new.get("role") != old.get("role"):
        return False
    if _ids(new) & _ids(old):
        return True
    head = blocks(old)
    return bool(head) and blocks(new)[: len(head)] == head


def _pair(before, after, i1: int, i2: int, j1: int, j2: int) -> list[Change]:
    """Changes for a replaced stretch: rewritten messages paired in order, the rest dropped, then added."""
    out: list[Change] = []
    i, new = i1, []  # new: after positions no before message grew into, shown after the drops
    same_size = i2 - i1 == j2 - j1
    for j in range(j1, j2):
        match = next((k for k in range(i, i2) if grew_from(after[j], before[k])), None)
        if match is None and same_size and after[j].get("role") == before[i1 + j - j1].get("role"):
            match = i1 + j - j1 if i1 + j - j1 >= i else None  # the same place in a stretch of equal size
        if match is None:
            new.append(j)
            continue
        if match > i:
            out.append(Change("dropped", range(i, match), range(j, j)))
        out += [Change("added", range(match, match), range(k, k + 1)) for k in new]
        out.append(Change("changed", range(match, match + 1), range(j, j + 1)))
        i, new = match + 1, []
    if i < i2:
        out.append(Change("dropped", range(i, i2), range(new[0] if new else j2, new[0] if new else j2)))
    out += [Change("added", range(i2, i2), range(k, k + 1)) for k in new]
    return out


def _merge(changes: list[Change]) -> list[Change]:
    """Neighbouring runs of dropped or added messages as one run."""
    out: list[Change] = []
    for c in changes:
        last = out[-1] if out else None
        if last and c.kind == last.kind and c.kind in ("dropped", "added", "same"):
            out[-1] = Change(
                c.kind, range(last.before.start, c.before.stop), range(last.after.start, c.after.stop)
            )
        else:
            out.append(c)
    return out


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many messages the two lists share at the start, and then at the end."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def align(before: Sequence[dict], after: Sequence[dict]) -> list[Change]:
    """The pass as runs of same, changed, dropped and added messages, in list order."""
    a, b = [to_json(m) for m in before], [to_json(m) for m in after]
    if len(a) == len(b):  # a layer that keeps the length rewrites messages in place
        return _merge(
            [
                Change("same" if x == y else "changed", range(i, i + 1), range(i, i + 1))
                for i, (x, y) in enumerate(zip(a, b, strict=True))
            ]
        )
    # layers keep a head and a tail: settle those first, so repeated messages keep their own numbers
    start, end = _common_ends(a, b)
    out = [Change("same", range(0, start), range(0, start))] if start else []
    matcher = SequenceMatcher(None, a[start : len(a) - end], b[start : len(b) - end], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + start, i2 + start, j1 + start, j2 + start
        if tag == "equal":
            out.append(Change("same", range(i1, i2), range(j1, j2)))
        elif tag == "delete":
            out.append(Change("dropped", range(i1, i2), range(j1, j1)))
        elif tag == "insert":
            out.extend(Change("added", range(i1, i1), range(j, j + 1)) for j in range(j1, j2))
        else:
            out.extend(_pair(before, after, i1, i2, j1, j2))
    if end:
        out.append(Change("same", range(len(a) - end, len(a)), range(len(b) - end, len(b))))
    return _merge(out)
