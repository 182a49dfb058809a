"""The Messages API shape: block helpers and the strict-form check every layer must keep.

A conversation is a list of plain dicts, ``{"role": "user" | "assistant", "content": str | [blocks]}``.
``validate`` accepts only the strict form that every version of the API takes; it names the first
message that breaks a rule, the rule, and what was wrong. ``validate(messages, system_messages=True)``
also accepts the API's mid-conversation ``role: "system"`` messages where the API places them ("must
immediately follow a `user` turn (or an `assistant` turn ending in a server tool result), and must
either be the last entry in `messages` or be immediately followed by an `assistant` turn"; not first;
consecutive ones "judged together": https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages,
"Limitations"), and judges the user and assistant turns around them by the strict rules; the offline
server's request check asks for that, while the course's layers, which never write a system message,
keep the strict form. Blocks other than ``text``, ``tool_use``
and ``tool_result`` (thinking, images, documents) are passed through untouched and never inspected
beyond having a ``type``. Deliberately left out: the API's limits on images, model-specific block
types, and the optional empty final assistant message (a prefill), which this course never sends.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Message = dict[str, Any]
Block = dict[str, Any]

ROLES = ("user", "assistant")

# rule name -> one-line description, in the order validate() checks them
RULES = {
    "not_a_list": "the conversation must be a list of messages",
    "empty_conversation": "the conversation needs at least one message",
    "message_not_dict": "every message must be a dict",
    "unknown_role": "role must be 'user' or 'assistant' (or 'system', where mid-conversation ones are)",
    "content_type": "content must be a string or a list of blocks",
    "empty_content": "content must not be empty",
    "block_not_dict": "every content block must be a dict",
    "block_without_type": "every content block needs a string 'type'",
    "empty_text": "text blocks must hold non-empty text",
    "first_not_user": "the first message must come from the user",
    "system_message_first": "a mid-conversation system message cannot be the first message",
    "system_message_misplaced": "a system message follows a user turn, precedes an assistant turn or ends",
    "tool_block_in_system": "tool_use and tool_result blocks never belong in a system message",
    "roles_not_alternating": "user and assistant messages must alternate",
    "tool_use_in_user": "tool_use blocks belong in assistant messages",
    "tool_result_in_assistant": "tool_result blocks belong in user messages",
    "malformed_tool_use": "a tool_use needs a string id, a string name and a dict input",
    "duplicate_tool_use_id": "tool_use ids must be unique in the conversation",
    "malformed_tool_result": "a tool_result needs a str tool_use_id, str or list content, a bool is_error",
    "tool_result_not_first": "tool_result blocks must come first in their user message",
    "orphan_tool_result": "a tool_result must answer a tool_use of the message just before",
    "duplicate_tool_result": "each tool_use is answered by exactly one tool_result",
    "tool_use_unanswered": "every tool_use must be answered in the very next user message",
}


class InvalidConversation(ValueError):
    """A message list that the API would reject: which message, which rule, and what was wrong."""

    def __init__(self, index: int | None, rule: str, detail: str, *, block: int | None = None):
        self.index = index
        self.rule = rule
        self.detail = detail
        self.block = block
        where = "conversation" if index is None else f"messages[{index}]"
        if block is not None:
            where += f".content[{block}]"
        super().__init__(f"{where} breaks rule '{rule}': {detail}")

    @property
    def api_message(self) -> str:
        """The error text the real API gives for this violation (used by the offline server)."""
        if self.rule == "tool_result_not_first":  # the API blames the unanswered tool_use
            return f"messages.{self.index - 1}: {self.detail}"
        where = "messages" if self.index is None else f"messages.{self.index}"
        if self.block is not None:
            where += f".content.{self.block}"
        return f"{where}: {self.detail}"


# ---------------------------------------------------------------- block and message builders


def _require(value: Any, types: type | tuple, param: str, func: str) -> None:
    """Raise a TypeError naming the function and parameter when ``value`` has the wrong type."""
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise TypeError(f"{func}(): '{param}' must be {names}, not {type(value).__name__}")


def _require_message(message: Any, func: str) -> None:
    _require(message, Mapping, "message", func)


def _require_messages(messages: Any, func: str) -> None:
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise TypeError(f"{func}(): 'messages' must be a list of dicts, not {type(messages).__name__}")


def text(value: str) -> Block:
    """A text block."""
    _require(value, str, "value", "text")
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, input: Mapping[str, Any] | None = None) -> Block:
    """A tool_use block (assistant side)."""
    _require(id, str, "id", "tool_use")
    _require(name, str, "name", "tool_use")
    _require(input if input is not None else {}, Mapping, "input", "tool_use")
    return {"type": "tool_use", "id": id, "name": name, "input": dict(input or {})}


def tool_result(tool_use_id: str, content: str | list, *, is_error: bool = False) -> Block:
    """A tool_result block (user side); ``is_error`` is only written when true."""
    _require(tool_use_id, str, "tool_use_id", "tool_result")
    _require(content, (str, list), "content", "tool_result")
    block: Block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def user(*content: str | Block) -> Message:
    """A user message from strings and blocks; a single string stays a plain string."""
    return _message("user", content)


def assistant(*content: str | Block) -> Message:
    """An assistant message from strings and blocks; a single string stays a plain string."""
    return _message("assistant", content)


def _message(role: str, content: tuple) -> Message:
    for part in content:
        _require(part, (str, dict), "content", role)
    if len(content) == 1 and isinstance(content[0], str):
        return {"role": role, "content": content[0]}
    return {"role": role, "content": [text(c) if isinstance(c, str) else c for c in content]}


# ---------------------------------------------------------------- reading messages


def blocks(message: Mapping[str, Any]) -> list[Block]:
    """The content of a message as a list of blocks (a string becomes one text block)."""
    if type(message) is not dict:  # the common case skips the (slower) Mapping check
        _require_message(message, "blocks")
    content = message.get("content")
    if isinstance(content, str):
        return [text(content)] if content else []
    if content is not None and not isinstance(content, list):
        raise TypeError(f"blocks(): content must be a string or a list, not {type(content).__name__}")
    return [b for b in content or () if isinstance(b, dict)]


def tool_use_blocks(message: Mapping[str, Any]) -> list[Block]:
    """The tool_use blocks of a message, in order."""
    return [b for b in blocks(message) if b.get("type") == "tool_use"]


def tool_result_blocks(message: Mapping[str, Any]) -> list[Block]:
    """The tool_result blocks of a message, in order."""
    return [b for b in blocks(message) if b.get("type") == "tool_result"]


def has_tool_use(message: Mapping[str, Any]) -> bool:
    """True when an assistant message asks for at least one tool."""
    _require_message(message, "has_tool_use")
    return message.get("role") == "assistant" and bool(tool_use_blocks(message))


def is_tool_result_message(message: Mapping[str, Any]) -> bool:
    """True when a user message carries at least one tool_result."""
    _require_message(message, "is_tool_result_message")
    return message.get("role") == "user" and bool(tool_result_blocks(message))


def has_user_text(message: Mapping[str, Any]) -> bool:
    """True when a user message carries the user's own words, not only tool results."""
    _require_message(message, "has_user_text")
    if message.get("role") != "user":
        return False
    return any(b.get("type") == "text" and str(b.get("text", "")).strip() for b in blocks(message))


def tool_names(messages: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Map every tool_use id in the conversation to its tool's name."""
    _require_messages(messages, "tool_names")
    # tool_use_id -> tool name
    return {b["id"]: b.get("name", "?") for m in messages for b in tool_use_blocks(m) if "id" in b}


def tool_inputs(messages: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    """Map every tool_use id in the conversation to the input it was called with."""
    _require_messages(messages, "tool_inputs")
    # tool_use_id -> input dict
    return {b["id"]: b.get("input") or {} for m in messages for b in tool_use_blocks(m) if "id" in b}


def tool_name_for(messages: Iterable[Mapping[str, Any]], tool_use_id: str) -> str | None:
    """The name of the tool behind a tool_use_id, or None when no tool_use has that id."""
    _require(tool_use_id, str, "tool_use_id", "tool_name_for")
    return tool_names(messages).get(tool_use_id)


def text_of(content: Any) -> str:
    """The text of a content value: a string as is, text blocks of a list joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    raise TypeError(f"text_of(): content must be a string or a list of blocks, not {type(content).__name__}")


def result_chars(block: Mapping[str, Any]) -> int:
    """The size of a tool_result as the layers count it: characters of its text."""
    content = block.get("content", "")
    return len(text_of(content)) if isinstance(content, (str, list)) else 0


def block_text(block: Any) -> str:
    """All the text a block carries: a text, a tool call as ``name {input}``, a result's output, a thought."""
    if not isinstance(block, dict):
        raise TypeError(f"a content block must be a dict, not {type(block).__name__}")
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"{block.get('name', '')} {json.dumps(block.get('input', {}), ensure_ascii=False)}"
    if kind == "tool_result":
        content = block.get("content", "")
        return "\n".join(block_text(b) for b in content) if isinstance(content, list) else str(content)
    if kind in ("thinking", "redacted_thinking"):
        return str(block.get("thinking") or block.get("data") or "")
    if kind in ("image", "document"):
        return ""
    return json.dumps(block, ensure_ascii=False)


def tail_starts(messages: Sequence[Mapping[str, Any]], first: int = 1) -> list[int]:
    """Where a kept tail may begin: each assistant message from index ``first`` on.

    The one pair-safe cut rule: a tail that starts at an assistant message never holds a
    ``tool_result`` whose ``tool_use`` was cut away, and the message before it (a user message)
    can close the part that is kept or summarized.
    """
    return [i for i in range(max(first, 0), len(messages)) if messages[i].get("role") == "assistant"]


def shared_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many leading messages two lists share, found by halving with slice comparisons run in C.

    Messages are compared with ``==``, which takes the same dict as equal without looking inside,
    so a list that grew or changed near its end costs a few C-level comparisons, not a Python loop.
    """
    if type(a) is not type(b):
        a, b = list(a), list(b)
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    hi -= 1  # they differ somewhere before hi
    while lo < hi:  # a[:lo] == b[:lo], and the first difference is at an index < hi + 1
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def to_json(message: Mapping[str, Any]) -> str:
    """A message as compact JSON with non-ASCII kept, the form transcripts and stores use."""
    _require_message(message, "to_json")
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def from_response(response: Any) -> Message:
    """Turn an SDK ``Message`` (or its dict) into a plain assistant message dict."""
    if hasattr(response, "model_dump"):
        data = response.model_dump(mode="json")
    elif isinstance(response, Mapping):
        data = dict(response)
    elif hasattr(response, "content"):  # an object shaped like the SDK's (a test double)
        data = {"content": [b if isinstance(b, Mapping) else vars(b) for b in response.content or []]}
    else:
        raise TypeError(
            f"from_response(): 'response' must be an SDK Message or a dict, not {type(response).__name__}"
        )
    content = []
    for j, block in enumerate(data.get("content") or []):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise ValueError(f"from_response(): content[{j}] is not a block with a 'type'")
        kind = block["type"]
        if kind == "text":
            content.append(text(str(block.get("text") or "")))
        elif kind == "tool_use":
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise ValueError(f"from_response(): content[{j}] is a tool_use without an id or a name")
            content.append(tool_use(block["id"], block["name"], block.get("input") or {}))
        else:
            content.append({k: v for k, v in block.items() if v is not None})
    content = [b for b in content if not (b.get("type") == "text" and not b["text"])]
    return {"role": "assistant", "content": content or [text("(no content)")]}


# ---------------------------------------------------------------- the strict form


def validate(messages: Any, *, system_messages: bool = False) -> None:
    """Raise InvalidConversation unless ``messages`` is in the strict form every API version takes.

    With ``system_messages`` a ``role: "system"`` message is accepted where the API places a
    mid-conversation one; the user and assistant turns around it are held to the strict form.
    """
    if not isinstance(messages, list):
        raise InvalidConversation(None, "not_a_list", f"got {type(messages).__name__}")
    if not messages:
        raise InvalidConversation(None, "empty_conversation", "the list is empty")
    seen_ids: set[str] = set()
    pending: list[str] = []  # tool_use ids of the previous assistant message, still unanswered
    previous: tuple[int, str] | None = None  # (index, role) of the last user or assistant turn
    for i, message in enumerate(messages):
        if system_messages and isinstance(message, dict) and message.get("role") == "system":
            _check_system(i, messages)
            continue
        content = _check_shape(i, message)
        role = message["role"]
        if previous is None and role != "user":
            raise InvalidConversation(i, "first_not_user", f"the first message has role '{role}'")
        if previous is not None and role == previous[1]:
            raise InvalidConversation(
                i, "roles_not_alternating", f"two '{role}' messages in a row (at {previous[0]} and {i})"
            )
        if role == "assistant":
            pending = _check_assistant(i, content, seen_ids)
        else:
            _check_user(i, content, pending)
            pending = []
        previous = (i, role)
    if pending and previous is not None:
        raise _unanswered(previous[0], pending)


def _check_system(i: int, messages: list) -> None:
    """A mid-conversation system message: its shape, and where its section (consecutive ones) sits."""
    content = _check_shape(i, {**messages[i], "role": "user"})
    for j, block in enumerate(content):
        if block["type"] in ("tool_use", "tool_result"):
            what = f"`{block['type']}` blocks are not allowed in system messages"
            raise InvalidConversation(i, "tool_block_in_system", what, block=j)
    start = i
    while start > 0 and _is_system(messages[start - 1]):
        start -= 1
    end = i
    while end + 1 < len(messages) and _is_system(messages[end + 1]):
        end += 1
    if start == 0:
        what = "a system message cannot be the first message; use the top-level `system`"
        raise InvalidConversation(i, "system_message_first", what)
    before, after = messages[start - 1], messages[end + 1] if end + 1 < len(messages) else None
    follows = isinstance(before, dict) and (
        before.get("role") == "user" or (before.get("role") == "assistant" and _ends_in_server_result(before))
    )
    precedes = after is None or (isinstance(after, dict) and after.get("role") == "assistant")
    if not (follows and precedes):
        where = "follow a `user` turn" if not follows else "precede an `assistant` turn or end `messages`"
        raise InvalidConversation(
            i, "system_message_misplaced", f"a mid-conversation system message must {where}"
        )


def _is_system(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


def _ends_in_server_result(message: dict) -> bool:
    """True when an assistant turn ends in a server tool's result (``web_search_tool_result``, ...)."""
    content = message.get("content")
    last = content[-1] if isinstance(content, list) and content else None
    kind = last.get("type") if isinstance(last, dict) else None
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _check_shape(i: int, message: Any) -> list[Block]:
    if not isinstance(message, dict):
        raise InvalidConversation(i, "message_not_dict", f"got {type(message).__name__}")
    role = message.get("role")
    if role not in ROLES:
        raise InvalidConversation(i, "unknown_role", f"role is {role!r}")
    content = message.get("content")
    if not isinstance(content, (str, list)):
        raise InvalidConversation(i, "content_type", f"content is {type(content).__name__}")
    if (isinstance(content, str) and not content.strip()) or content == []:
        raise InvalidConversation(i, "empty_content", "all messages must have non-empty content")
    if isinstance(content, str):
        return [text(content)]
    for j, block in enumerate(content):
        if not isinstance(block, dict):
            raise InvalidConversation(i, "block_not_dict", f"block is {type(block).__name__}", block=j)
        if not isinstance(block.get("type"), str):
            raise InvalidConversation(i, "block_without_type", "block has no 'type'", block=j)
        if block["type"] == "text" and not (isinstance(block.get("text"), str) and block["text"].strip()):
            raise InvalidConversation(i, "empty_text", "text content blocks must be non-empty", block=j)
    return content


def _check_assistant(i: int, content: list[Block], seen_ids: set[str]) -> list[str]:
    ids = []
    for j, block in enumerate(content):
        kind = block["type"]
        if kind == "tool_result":
            raise InvalidConversation(
                i,
                "tool_result_in_assistant",
                "`tool_result` blocks are only allowed in user messages",
                block=j,
            )
        if kind != "tool_use":
            continue
        if not (
            isinstance(block.get("id"), str)
            and block["id"]
            and isinstance(block.get("name"), str)
            and isinstance(block.get("input"), dict)
        ):
            raise InvalidConversation(
                i,
                "malformed_tool_use",
                "a `tool_use` block needs an id, a name and an input object",
                block=j,
            )
        if block["id"] in seen_ids:
            raise InvalidConversation(
                i, "duplicate_tool_use_id", f"`tool_use` ids must be unique: {block['id']}", block=j
            )
        seen_ids.add(block["id"])
        ids.append(block["id"])
    return ids


def _check_user(i: int, content: list[Block], pending: list[str]) -> None:
    answered: set[str] = set()
    seen_other = False
    for j, block in enumerate(content):
        kind = block["type"]
        if kind == "tool_use":
            raise InvalidConversation(
                i,
                "tool_use_in_user",
                "`tool_use` blocks are only allowed in assistant messages",
                block=j,
            )
        if kind != "tool_result":
            seen_other = True
            continue
        use_id = block.get("tool_use_id")
        if (
            not isinstance(use_id, str)
            or not isinstance(block.get("content", ""), (str, list))
            or not isinstance(block.get("is_error", False), (bool, type(None)))
        ):
            raise InvalidConversation(
                i,
                "malformed_tool_result",
                "a `tool_result` block needs a tool_use_id, string or list content, and a boolean is_error",
                block=j,
            )
        if use_id not in pending:
            raise InvalidConversation(
                i,
                "orphan_tool_result",
                f"unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{use_id}. Each `tool_result` block must have a corresponding `tool_use` block in "
                "the previous message.",
                block=j,
            )
        if use_id in answered:
            raise InvalidConversation(
                i, "duplicate_tool_result", f"`tool_result` for {use_id} appears twice", block=j
            )
        if seen_other:
            # The API reads text before the results as "no results here".
            raise InvalidConversation(i, "tool_result_not_first", _unanswered_text(pending), block=j)
        answered.add(use_id)
    missing = [u for u in pending if u not in answered]
    if missing:
        raise _unanswered(i - 1, missing)


def _unanswered_text(ids: list[str]) -> str:
    return (
        "`tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    )


def _unanswered(index: int, ids: list[str]) -> InvalidConversation:
    return InvalidConversation(index, "tool_use_unanswered", _unanswered_text(ids))


def is_valid(messages: Any) -> bool:
    """True when ``validate`` accepts the list."""
    try:
        validate(messages)
    except InvalidConversation:
        return False
    return True
