"""The summary request: the history plus the summary prompt, cut so that the request itself fits.

A summary is asked for exactly when the history is too big, so the request that carries it can be
too big as well. The summary layer then writes the summary in parts (``next_part``): the request
for the longest run of whole message groups that fits, then the summary so far plus the next run,
until the newest message is covered. ``fit_request`` is the one-request form, for a caller that
cannot make several: it drops the oldest message groups from the request (they are in the
transcript): it keeps the first user message (the task), a note saying how many messages
were left out, and the newest messages from an assistant message on, so no ``tool_use`` is ever
parted from its ``tool_result`` and roles keep alternating. With ``cached`` (how many leading messages
the agent's last request sent, the part a prompt cache holds), the request first tries to keep that
prefix whole and shorten only the newer messages' long outputs (``lean``), so it can still be read
from the cache; only then does it drop old groups, and the summary says what only the transcript
holds. Deliberately left out: summarizing parts side by side and merging them (each part is
summarized on top of the summary before it, so the parts are asked for one after another).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compaction.core.messages import Message, blocks, tail_starts, text, text_of, user
from compaction.core.placeholders import RESTORED
from compaction.core.summary_prompt import summary_prompt
from compaction.core.tokens import message_tokens

METHOD = "tiktoken"  # the counter the offline server uses
LEAN_CHARS = 300  # a tool output longer than this is left out of a request that does not fit


def with_summary_prompt(messages: Sequence[Message], focus: str | None = None) -> list[Message]:
    """A new list: the prompt as the last text block of the last user message, or a new user turn."""
    prompt = text(summary_prompt(focus))
    if messages and messages[-1].get("role") == "user":
        last = dict(messages[-1], content=[*blocks(messages[-1]), prompt])
        return [*messages[:-1], last]
    return [*messages, {"role": "user", "content": [prompt]}]


def dropped_note(dropped: int) -> str:
    """The line that stands in the request for the messages left out of it."""
    return (
        f"[{dropped} earlier messages are left out of this request because it would not fit the "
        "context window; they are only in the transcript. Say so in the summary.]"
    )


def fit_request(
    messages: Sequence[Message],
    budget: int | None,
    *,
    focus: str | None = None,
    extra_tokens: int = 0,
    cached: int = 0,
) -> tuple[list[Message], int]:
    """The summary request for ``messages`` within ``budget`` tokens, and how many messages it drops.

    ``extra_tokens`` is what the request carries besides its messages (system prompt, tools).
    ``cached`` > 0: the first ``cached`` messages are kept whole before anything else is tried.
    Raises ValueError when even the first message plus the newest group does not fit.
    """
    if budget is None or _tokens(with_summary_prompt(messages, focus)) + extra_tokens <= budget:
        return with_summary_prompt(messages, focus), 0
    if 0 < cached < len(messages):
        kept = with_summary_prompt([*messages[:cached], *lean(messages[cached:])], focus)
        if _tokens(kept) + extra_tokens <= budget:
            return kept, 0
    for history in (messages, lean(messages)):  # whole outputs first, then outputs left out too
        found = _drop_oldest(history, budget - extra_tokens, focus)
        if found is not None:
            return found
    raise ValueError(
        f"the summary request does not fit: it needs {smallest_request(messages, focus) + extra_tokens:,} "
        f"tokens even with only the first message and the newest messages ({len(messages)} messages in "
        f"all), over the {max(budget, 0):,} tokens left for it"
    )


SO_FAR = (
    "[The summary so far of the earlier part of this conversation ({done} messages); the messages that "
    "follow it come next. Write one summary of both: keep what this one says, add what follows.]"
)


def next_part(
    messages: Sequence[Message],
    start: int,
    budget: int,
    *,
    so_far: str | None = None,
    focus: str | None = None,
) -> tuple[list[Message], int]:
    """The request for the next part of a summary written in parts, and where the part after it starts.

    The first part (``start`` 0) is ``messages`` from the first message on; a later part is one user
    message holding ``so_far`` (the summary of ``messages[:start]``) and then ``messages[start:]``,
    where ``messages[start]`` is an assistant message. The part ends before an assistant message, so
    no pair is parted; it takes as many whole groups as ``budget`` allows, and when not even one fits,
    one group with its long outputs left out (``lean``). Raises ValueError when that does not fit.
    """
    if start and so_far is None:
        raise ValueError("a part after the first needs the summary so far")
    first = 1 if not start else start  # where the part's own messages begin
    head = messages[0] if not start else user(text(SO_FAR.format(done=start)), text(str(so_far)))
    body = messages[first:]
    ends = [*tail_starts(body, 1), len(body)]  # a part ends before an assistant message: no pair parted
    used = _tokens(with_summary_prompt([head], focus))
    fits = []
    for end, size in zip(ends, _group_sizes(body, ends), strict=True):
        used += size
        if used > budget:
            break
        fits.append(end)
    for end in reversed(fits):  # the estimate counts the prompt apart; the request is checked whole
        request = with_summary_prompt([head, *body[:end]], focus)
        if _tokens(request) <= budget:
            return request, first + end
    end = ends[0]  # not even one group fits whole: its long outputs go, the transcript has them
    request = with_summary_prompt([head, *lean(body[:end])], focus)
    if _tokens(request) > budget:
        raise ValueError(
            f"the summary request does not fit: the part from message {first} needs {_tokens(request):,} "
            f"tokens even with its long outputs left out, over the {max(budget, 0):,} tokens left for it"
        )
    return request, first + end


def _group_sizes(body: Sequence[Message], ends: Sequence[int]) -> list[int]:
    """Tokens of each group of ``body``: the messages from one end (or the start) to the next."""
    sizes = [message_tokens(m, METHOD) for m in body]
    return [sum(sizes[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def smallest_request(messages: Sequence[Message], focus: str | None = None) -> int:
    """Tokens of the smallest summary request ``fit_request`` can make: first and newest messages, lean."""
    history = lean(messages)
    starts = tail_starts(history, 2)
    request = _request_from(history, starts[-1], focus) if starts else with_summary_prompt(history, focus)
    return _tokens(request)


def lean(messages: Sequence[Message]) -> list[Message]:
    """The list with long tool outputs and restored files cut to a line naming what was left out."""
    out = []
    for message in messages:
        if isinstance(message.get("content"), str):
            out.append(message)
            continue
        out.append({**message, "content": [_lean_block(b) for b in message["content"]]})
    return out


def _lean_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "tool_result":
        size = len(text_of(block.get("content")))
        if size > LEAN_CHARS:
            return {**block, "content": f"[{size:,} characters of output left out here; in the transcript]"}
    if block.get("type") == "text" and block.get("text", "").startswith(RESTORED):
        return {**block, "text": block["text"].split("\n", 1)[0]}
    return block


def _drop_oldest(messages: Sequence[Message], budget: int, focus: str | None) -> tuple[list, int] | None:
    """The request without the fewest oldest groups (maybe none) that makes it fit, or None."""
    if _tokens(with_summary_prompt(messages, focus)) <= budget:
        return with_summary_prompt(messages, focus), 0
    # cut points: the request keeps messages[start:] where messages[start] is an assistant message
    starts = tail_starts(messages, 2)
    sizes = [message_tokens(m, METHOD) for m in messages]  # tokens of each message as it is
    last_is_user = messages[-1].get("role") == "user"  # then the prompt joins it, else it follows
    for start in starts:
        request = _request_from(messages, start, focus)
        ends = _tokens([request[0], request[-1]])
        middle = sum(sizes[start : len(messages) - 1] if last_is_user else sizes[start:])
        if ends + middle <= budget:
            return request, start - 1
    return None


def _request_from(messages: Sequence[Message], start: int, focus: str | None) -> list[Message]:
    """The first user message with the dropped-note, then messages[start:], then the prompt."""
    first = {"role": "user", "content": [*blocks(messages[0]), text(dropped_note(start - 1))]}
    return with_summary_prompt([first, *messages[start:]], focus)


def _tokens(messages: Sequence[dict[str, Any]]) -> int:
    return sum(message_tokens(m, METHOD) for m in messages)
