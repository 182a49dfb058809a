"""micro_compact: replace old tool results with a one-line note of what to re-run.

All tool results but the newest ``keep_recent`` (counted over the whole conversation) have their
content replaced by a placeholder that names the tool and what to call again: the path for a file
read, the command for bash, the pattern for glob, the input for anything else. A placeholder may
keep a few lines of what it replaces, bounded: the result's error lines (``keep_errors``) and the
lines the agent used later (``keep_used``); the default list keeps two and one. The block keeps its
``tool_use_id`` and ``is_error``, so pairing and error flags are intact. Skipped: results shorter
than ``min_chars``, results of ``exclude_tools``, results already replaced, and persisted-output
markers (already small, and they say where the full output is).

Sizes count the text of a result; non-text blocks (images) are dropped with it when it is replaced.
Every clearing changes a message that was already sent, so a prompt cache is written again from
that message on (the pipeline clears in batches for that reason). Deliberately left out: saving what
is cleared (the pipeline's transcript keeps it), clearing tool inputs, the API's server-side clearing
(``clear_tool_uses_20250919``, which also invalidates the cached prefix and costs cache writes, per
the context-editing docs), and deleting results without rewriting the cached prefix (no public API
feature does that: the SDK's types have no ``cache_edits``).

A pass that runs turn after turn need not look at the whole history: ``Scanned`` remembers the head
of the last list, the messages none of whose results a pass would change (cleared already, or left
for a reason that stays true), and the next pass looks only at what comes after it. ``Micro`` keeps
one per pipeline, so the work of a pass follows what arrived since the last one; the result is the
same as a pass over the whole list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from compaction.core.guards import fraction, message_list, whole
from compaction.core.messages import (
    blocks,
    result_chars,
    shared_prefix,
    text_of,
    tool_result_blocks,
    tool_use_blocks,
)
from compaction.core.models import CLAUDE_MODEL, MODELS
from compaction.core.outcomes import problem_lines
from compaction.core.placeholders import CLEARED_HEAD, is_cleared, is_persisted_marker  # noqa: F401
from compaction.core.placeholders import cleared_placeholder as placeholder_for
from compaction.core.used import LaterUse
from compaction.layers.layer import QUIET, Layer, Shared

_PRICED = MODELS[CLAUDE_MODEL]  # the default model's row of the cited price table
READ_PRICE = _PRICED.cache_read / _PRICED.input_price  # a cache read, times the base input price
WRITE_PRICE = _PRICED.cache_write_5m / _PRICED.input_price  # a 5-minute cache write, likewise


def micro_compact(
    messages: list[dict],
    *,
    keep_recent: int = 3,
    min_chars: int = 120,
    exclude_tools: Iterable[str] = (),
    keep_used: int = 0,
    keep_errors: int = 0,
    scanned: Scanned | None = None,
) -> list[dict]:
    """Replace all but the newest ``keep_recent`` tool results with a placeholder naming the tool.

    With ``keep_used`` > 0 the placeholder keeps up to that many lines of the result that the agent
    used later (``compaction.core.used``): a line whose path, identifier, number or quoted string
    reappears in a later assistant text or tool input. With ``keep_errors`` > 0 it keeps first up to
    that many error lines (``compaction.core.outcomes.problem_lines``: a failure a test runner lists,
    an exception, a linter's error). ``scanned`` (a ``Scanned`` kept from pass to pass) skips the
    messages an earlier pass already settled; the result is the same without it.
    """
    if not isinstance(messages, list):
        message_list(messages)  # says what it is instead
    excluded = _check_settings(keep_recent, min_chars, exclude_tools)
    whole("keep_used", keep_used)
    whole("keep_errors", keep_errors)
    settings = (min_chars, excluded, keep_used, keep_errors)
    start = scanned.start(messages, settings) if scanned is not None else 0
    if not (start and set(map(type, messages[start:])) <= {dict}):  # the settled head: the last list's
        message_list(messages)  # dicts; the whole list looked at only when it may hold something else
    # (message index, block index) of every tool_result after the settled head, oldest first
    found = [
        (i, j)
        for i, m in enumerate(messages[start:], start)
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for j, b in enumerate(m["content"])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    old = found[: max(0, len(found) - keep_recent)]
    calls = _Calls(messages)  # tool_use_id -> its tool_use block, looked up only when needed
    later: LaterUse | None = None  # built on the first result to clear, only when lines are kept
    out = list(messages)
    open_at = len(messages)  # the first message with a result a later pass may still change
    for i, j in old:
        block = messages[i]["content"][j]
        content = block.get("content", "")
        if is_cleared(content) or is_persisted_marker(content) or result_chars(block) < min_chars:
            continue
        call = calls.find(block.get("tool_use_id"), i)
        name = call.get("name", "?") if call else None
        if name in excluded:
            open_at = open_at if calls.near(block.get("tool_use_id"), i) else min(open_at, i)
            continue
        kept: list[str] = problem_lines(text_of(content), keep_errors) if keep_errors else []
        if keep_used:
            later = later or LaterUse(messages)
            used = later.lines(text_of(content), i, max_lines=keep_used)
            kept += [line for line in used if line not in kept]
        note = placeholder_for(name, (call.get("input") or {}) if call else None, kept)
        if len(note) >= result_chars(block):
            # left whole for good only when its note cannot change: no kept lines (later messages
            # choose them), and a call in the messages just before it
            settled = not keep_used and calls.near(block.get("tool_use_id"), i)
            open_at = open_at if settled else min(open_at, i)
            continue  # the note would not be smaller
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": note}
    if scanned is not None:
        for i, j in found[len(old) :]:  # the newest results, left whole unless already small
            if not _settled(messages[i]["content"][j], min_chars):
                open_at = min(open_at, i)
                break
        scanned.remember(out[:open_at], settings)
    return out


def _settled(block: dict, min_chars: int) -> bool:
    """A result no pass with ``min_chars`` changes, whatever comes after it: cleared, a marker, short."""
    content = block.get("content", "")
    return is_cleared(content) or is_persisted_marker(content) or result_chars(block) < min_chars


class Scanned:
    """The head of the list micro last passed over: messages none of whose results a pass changes.

    Each result there is a placeholder already, a persisted-output marker, shorter than ``min_chars``,
    or left whole for a reason that no later message can change (an excluded tool, a note that would
    not be smaller, its call in the message just before it). A pass with the same settings looks only
    at the messages after the part of its list that is the same as this head (the same message dicts:
    messages are never changed in place). Kept by ``Micro`` in the pipeline's state.
    """

    def __init__(self) -> None:
        self.head: list[dict] = []
        self.settings: tuple = ()  # (min_chars, excluded tools, keep_used, keep_errors) of the head

    def start(self, messages: list[dict], settings: tuple) -> int:
        """How many leading messages of ``messages`` need no look: those it shares with the head."""
        return shared_prefix(self.head, messages) if settings == self.settings else 0

    def remember(self, head: list[dict], settings: tuple) -> None:
        """Keep ``head``, the settled start of the list a pass returned."""
        self.head, self.settings = head, settings


@dataclass(frozen=True, repr=False)
class Micro(Layer):
    """Past ``trigger`` (a fraction of the summary threshold), old results become placeholders.

    A clearing is used only when it frees at least ``clear_at_least`` tokens (default: a 40th of
    the window): every clearing rewrites sent messages and breaks the prompt cache, so old results
    are cleared in batches, not one per turn (the idea of the API's own ``clear_at_least``).
    ``keep_used`` > 0 keeps up to that many lines of each cleared result that the agent used later
    (``compaction.core.used``) in its placeholder, ``keep_errors`` > 0 up to that many of its error
    lines (``compaction.core.outcomes.problem_lines``); both off in ``Micro()``, on in the Compactor's
    default list (``cache_aware``: two error lines and one used line, chosen on the real sessions).
    ``payback_turns`` > 0 (0, off, by default) also asks a clearing to pay for its cache break:
    under the summary threshold it is used only when the cache reads it saves over that many turns
    (tokens freed x the cache-read price x the turns ahead) reach what writing again everything
    after its first cleared result costs (those tokens x the cache-write price; both prices are the
    default model's, ``compaction.core.models``). The turns ahead are as many as the session has run
    so far, at most ``payback_turns`` (``turns_ahead``): a session of a dozen turns that fits its
    window is not cleared for savings it will never see. A clearing that frees little but rewrites a
    long tail waits, so there are fewer, larger clearings. Over the threshold any clearing is worth it.
    ``keep_unread`` (off by default) never clears a result of the last message, which the model has
    not read yet. ``Micro.cache_aware()`` is the layer with the settings of the Compactor's default
    list, and the reason for each.
    ``run`` is called as ``run(messages, keep_recent=..., min_chars=...)``, plus ``exclude_tools=...``,
    ``keep_used=...`` and ``keep_errors=...`` when set (so chapter 05's ``micro``, which has no such
    argument, runs as it is).
    """

    name: ClassVar[str] = "micro"
    unchanged: ClassVar[str] = "no old result was left to clear"
    keep_recent: int = 3
    min_chars: int = 120
    exclude_tools: tuple[str, ...] = ()
    keep_used: int = 0
    keep_errors: int = 0
    trigger: float = 0.5
    clear_at_least: int | None = None
    payback_turns: int = field(default=0, metadata=QUIET)
    keep_unread: bool = field(default=False, metadata=QUIET)
    run: Callable[..., list[dict]] = micro_compact

    def __post_init__(self) -> None:
        fraction("trigger", self.trigger)
        # said when the list is built, not when micro first fires (micro_compact's own checks)
        _check_settings(self.keep_recent, self.min_chars, self.exclude_tools)
        whole("keep_used", self.keep_used)
        whole("keep_errors", self.keep_errors)
        whole("payback_turns", self.payback_turns)
        if self.clear_at_least is not None:
            whole("clear_at_least", self.clear_at_least)
        if not isinstance(self.keep_unread, bool):
            raise ValueError(f"keep_unread must be True or False, not {self.keep_unread!r}")
        object.__setattr__(self, "exclude_tools", tuple(self.exclude_tools))

    @classmethod
    def cache_aware(cls, **settings: Any) -> Micro:
        """Micro as the Compactor's default list has it, chosen by chapter 13's prompt-cache prices.

        Only the newest result stays whole (``keep_recent=1``) and every result the model has not
        read yet (``keep_unread``), so the context read again on every turn is small; clearing may
        start at 30% of the threshold (``trigger=0.3``), and under the threshold only when the cache
        reads it saves over 30 turns pay for the cache it breaks (``payback_turns=30``; fewer while
        the session is younger, ``turns_ahead``). A placeholder keeps a cleared result's first two
        error lines (``keep_errors=2``) and its one line most used later (``keep_used=1``): chosen on
        the real sessions of ``../shared/data`` (issue 40: probes kept 82% -> 87%, recall 71% -> 77%),
        where no summary runs in short sessions and a placeholder is all that is left of a result,
        while the offline 150-turn session keeps its goals (tokens removed 86.7%; two used lines take
        it to 83%, under its 85%). ``settings`` change any of them (``Micro.cache_aware(keep_used=2)``).
        """
        chosen = {"keep_recent": 1, "trigger": 0.3, "payback_turns": 30, "keep_unread": True}
        chosen |= {"keep_errors": 2, "keep_used": 1}
        return cls(**{**chosen, **settings})

    def fires_at(self, shared: Shared) -> int:
        """The estimate above which micro fires: ``trigger`` times the pipeline's summary threshold."""
        return int(self.trigger * shared.threshold)

    def batch(self, shared: Shared) -> int:
        """The fewest tokens a clearing must free: ``clear_at_least``, or a 40th of the window."""
        return shared.context_window // 40 if self.clear_at_least is None else self.clear_at_least

    def idle(self, messages: Sequence[dict], shared: Shared) -> str | None:
        """Not triggered while the estimate is within ``trigger`` of the threshold."""
        estimate, limit = shared.estimate(messages), self.fires_at(shared)
        if estimate <= self.trigger * shared.threshold:
            return (
                f"not triggered: {estimate:,} tokens, within {self.trigger:.0%} of the threshold ({limit:,})"
            )
        return None

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """``run(messages, keep_recent=..., min_chars=...)``, and ``exclude_tools``/``keep_used`` when set.

        With ``keep_unread``, ``keep_recent`` grows to cover every result of the last message: the
        model has not read them yet (several tool calls of one turn, answered together).
        """
        keep = self.keep_recent
        if self.keep_unread and messages:
            keep = max(keep, len(tool_result_blocks(messages[-1])))
        options: dict[str, Any] = {"keep_recent": keep, "min_chars": self.min_chars}
        if self.exclude_tools:
            options["exclude_tools"] = self.exclude_tools
        if self.keep_used:
            options["keep_used"] = self.keep_used
        if self.keep_errors:
            options["keep_errors"] = self.keep_errors
        if self.run is micro_compact and shared is not None:  # it looks only past what it settled last pass
            options["scanned"] = shared.state(self).setdefault("scanned", Scanned())
        return self.run(messages, **options)

    def rejects(self, before: list[dict], after: list[dict], shared: Shared) -> str | None:
        """Not used when it frees fewer than ``clear_at_least`` tokens: not worth a cache break."""
        estimate, freed = shared.estimate(before), shared.estimate(before) - shared.estimate(after)
        if freed < self.batch(shared):
            return (
                f"triggered ({estimate:,} > {self.fires_at(shared):,}), but clearing would free only "
                f"{freed:,} tokens, less than clear_at_least {self.batch(shared):,}: "
                "not worth breaking the prompt cache"
            )
        if self.payback_turns and estimate <= shared.threshold:
            tail, turns = rewritten_tokens(before, after, shared), self.turns_ahead(shared)
            saved, cost = freed * READ_PRICE * turns, tail * WRITE_PRICE
            if saved < cost:
                return (
                    f"triggered ({estimate:,} > {self.fires_at(shared):,}), but clearing would save "
                    f"{saved:,.0f} tokens' worth of cache reads over {turns} turns, less than "
                    f"the {cost:,.0f} of writing again the {tail:,} tokens after the first cleared result"
                )
        return None

    def sees(self, messages: Sequence[dict], shared: Shared) -> None:
        """Counts the pipeline's calls: how long the session has run so far (``turns_ahead``)."""
        state = shared.state(self)
        state["calls"] = state.get("calls", 0) + 1

    def turns_ahead(self, shared: Shared) -> int:
        """The turns a clearing must pay back in: as many as the session has run, at most ``payback_turns``.

        A session is expected to run on for about as long as it has run so far: a short session that
        fits its window never has 30 more turns to earn back a cache break, a long one may.
        """
        return max(1, min(self.payback_turns, shared.state(self).get("calls", self.payback_turns)))

    def why_idle(self, messages: Sequence[dict], shared: Shared) -> str:
        """Its trigger, or what a clearing would have freed (runs the layer, changes nothing)."""
        reason = self.idle(messages, shared)
        if reason:
            return reason
        cleared = self.apply(list(messages), shared)
        if cleared == list(messages):
            estimate = shared.estimate(messages)
            return f"triggered ({estimate:,} > {self.fires_at(shared):,}), but {self.unchanged}"
        return self.rejects(list(messages), cleared, shared) or "it would clear now"


def rewritten_tokens(before: list[dict], after: list[dict], shared: Shared) -> int:
    """Tokens of ``after`` from its first message that differs from ``before``: what a cache writes again."""
    return sum(shared.counter.message_tokens(m) for m in after[shared_prefix(before, after) :])


class _Calls:
    """Finds the tool_use behind a result: first in the messages just before it, then anywhere.

    Old results are mostly cleared already, so only a few lookups happen per pass; searching back
    from the result finds its call in the message before it, instead of mapping the whole list.
    """

    def __init__(self, messages: list[dict]):
        self.messages = messages
        self._all: dict[str, dict] | None = None

    def find(self, use_id: Any, index: int) -> dict:
        """The tool_use block with ``use_id``, searching back from message ``index``; {} if none."""
        nearby = self.near(use_id, index)
        if nearby is not None:
            return nearby
        if self._all is None:  # a call further back (or none): map every call once
            self._all = {b["id"]: b for m in self.messages for b in tool_use_blocks(m) if "id" in b}
        return self._all.get(use_id, {})

    def near(self, use_id: Any, index: int) -> dict | None:
        """The tool_use block with ``use_id`` in one of the two messages before ``index``, or None."""
        for k in range(index - 1, max(index - 3, -1), -1):
            for b in tool_use_blocks(self.messages[k]):
                if b.get("id") == use_id:
                    return b
        return None


def cleared_count(messages: list[dict]) -> int:
    """How many tool results in a list are placeholders of this layer."""
    return sum(
        1
        for m in messages
        if m.get("role") == "user"
        for b in blocks(m)
        if b.get("type") == "tool_result" and is_cleared(b.get("content"))
    )


def _check_settings(keep_recent: Any, min_chars: Any, exclude_tools: Any) -> frozenset:
    """The tool names to leave alone, once the settings are checked (a string is no list of names)."""
    whole("keep_recent", keep_recent)
    whole("min_chars", min_chars)
    if isinstance(exclude_tools, str) or not isinstance(exclude_tools, Iterable):
        raise ValueError(f"exclude_tools must be a collection of tool names, got {exclude_tools!r}")
    names = frozenset(exclude_tools)
    if not all(isinstance(n, str) for n in names):
        raise ValueError("exclude_tools must hold tool names (strings)")
    return names
