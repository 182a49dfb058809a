"""Mid-conversation tool changes on the offline server: what the model is offered, what the cache keeps.

As the mid-conversation page defines them: every tool of ``tools`` is offered from the start unless
``defer_loading``; a ``tool_addition`` offers one from its position on (by reference, or by value under
``inline-tools-2026-09-15``), a ``tool_removal`` withdraws it; an unknown reference and a definition that
reuses another kind of tool's name are 400s the SDK raises as its typed errors; the ``tools`` array never
changes, so the cached prefix is read back, where editing ``tools`` misses it all. A compaction records the
range's net changes in its block's ``tool_changes``, and a later request starts from them.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types.beta import BetaMessage
from api_sessions import MODEL, client_for, private_server, strict

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.tokens import estimate_tokens
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.tool_changes import BETA_INLINE_TOOLS, BETA_TOOL_CHANGES


def tool(name: str, description: str, **extra) -> dict:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    return {"name": name, "description": description, "input_schema": schema, **extra}


READ = tool("read_file", "Read a file.")
GREP = tool("grep_file", "Search a file for a pattern.", defer_loading=True)
TASK = user("Read src/a.py, then say what it does.")


def change(kind: str, name: str | None = None, definition: dict | None = None) -> dict:
    target = (
        {"type": "tool_definition", "definition": definition} if definition else {"type": "tool_reference"}
    )
    return {"type": kind, "tool": {**target, **({"name": name} if name else {})}}


def system(*blocks: dict) -> dict:
    return {"role": "system", "content": list(blocks)}


@pytest.fixture
def server():
    with private_server(ManualClock()) as running:
        yield running


def ask(server, messages, tools=(READ, GREP), betas=(BETA_INLINE_TOOLS,), **params) -> BetaMessage:
    raw = client_for(server).beta.messages.with_raw_response.create(
        model=MODEL, max_tokens=256, messages=messages, tools=list(tools), betas=list(betas), **params
    )
    return strict(BetaMessage, raw.http_response.json())


def called(answer: BetaMessage) -> list[str]:
    return [b.name for b in answer.content if b.type == "tool_use"]


def test_a_deferred_tool_is_withheld_until_an_addition_and_a_removal_withdraws_one():
    with private_server(ManualClock()) as server:
        assert called(ask(server, [TASK])) == ["read_file"]  # grep_file is deferred: not offered
        task = user("Search src/a.py for `import`, then say what it does.")
        assert called(ask(server, [task])) == ["read_file"]
        added = ask(server, [task, system(change("tool_addition", "grep_file"))])
        assert called(added) == ["grep_file"]  # the tool sharing most words with the task, now offered
        removed = ask(server, [TASK, system(change("tool_removal", "read_file"))])
        assert called(removed) == [] and removed.stop_reason == "end_turn"


def test_a_tool_defined_by_value_is_offered_and_needs_the_inline_tools_beta(server):
    fetch = tool("fetch_file", "Fetch a file.")
    defined = [TASK, system(change("tool_addition", definition=fetch), change("tool_removal", "read_file"))]
    assert called(ask(server, defined)) == ["fetch_file"]
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(server, defined, betas=(BETA_TOOL_CHANGES,))  # references only
    assert "a `tool_definition` requires the beta header `anthropic-beta: inline-tools-2026-09-15`" in str(
        caught.value
    )
    with pytest.raises(anthropic.BadRequestError, match="requires the beta header"):
        ask(server, [TASK, system(change("tool_removal", "read_file"))], betas=())


def test_an_unknown_name_and_a_conflicting_definition_raise_the_sdks_typed_errors(server):
    with pytest.raises(anthropic.types.ToolReferenceUnresolvedError) as unresolved:
        ask(server, [TASK, system(change("tool_addition", "glob"))])
    assert unresolved.value.body["error"]["message"].startswith(
        "messages.1.content.0.tool.name: no tool named 'glob'"
    )
    search = {"type": "web_search_20250305", "name": "read_file"}
    with pytest.raises(anthropic.types.ToolNameConflictError):
        ask(server, [TASK, system(change("tool_addition", definition=search))])
    newer = tool("read_file", "Read a file, with line numbers.")  # the same kind of tool: it replaces
    assert called(ask(server, [TASK, system(change("tool_addition", definition=newer))])) == ["read_file"]


def test_a_tool_change_right_after_an_assistant_turn_is_refused(server):
    paused = assistant({"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []})
    with pytest.raises(anthropic.BadRequestError, match="right after a paused `assistant` turn"):
        ask(server, [TASK, paused, system(change("tool_removal", "read_file"))])


def test_a_tool_change_keeps_the_cached_prefix_where_editing_tools_misses_it_all(server):
    cached = {"cache_control": {"type": "ephemeral"}}
    session = [TASK, assistant(text("Reading."), tool_use("toolu_1", "read_file", {"path": "src/a.py"}))]
    session.append(user(tool_result("toolu_1", "def a():\n    return 1\n" * 60)))
    first = ask(server, session, **cached)
    prefix = estimate_tokens(session, "tiktoken", tools=[READ])
    assert first.usage.cache_creation_input_tokens == prefix
    added = ask(server, session + [system(change("tool_addition", "grep_file"))], **cached)
    assert added.usage.cache_read_input_tokens == prefix  # tools and every earlier message as sent
    edited = ask(server, session, tools=(READ, {**GREP, "defer_loading": False}), **cached)
    assert edited.usage.cache_read_input_tokens == 0  # the tools come first in the prefix


def test_a_compaction_records_the_ranges_tool_changes_and_the_next_request_starts_from_them(server):
    betas = (BETA_INLINE_TOOLS, "compact-2026-09-04")
    fetch = tool("fetch_file", "Fetch a file.")
    history = [TASK, system(change("tool_addition", "grep_file"), change("tool_addition", definition=fetch),
                            change("tool_removal", "read_file"))]  # fmt: skip
    history += [assistant(text("Fetching."), tool_use("toolu_1", "fetch_file", {"path": "src/a.py"}))]
    history += [user(tool_result("toolu_1", "def a(): pass"))]
    summary = ask(server, history, betas=betas, compaction={"type": "summarize"})
    [block] = summary.content
    assert [c.model_dump(exclude_none=True) for c in block.tool_changes] == [
        change("tool_addition", "grep_file"),
        change("tool_addition", definition=fetch),
        change("tool_removal", "read_file"),
    ]
    carried = [
        {"role": "assistant", "content": [block.model_dump(exclude_none=True)]},
        user("Fetch src/b.py, then say what it does."),
    ]
    assert called(ask(server, carried, betas=betas)) == ["fetch_file"]  # read_file stays withdrawn
    edited = dict(carried[0]["content"][0], tool_changes=[])
    with pytest.raises(anthropic.types.CompactionToolChangesMismatchError):
        ask(server, [{"role": "assistant", "content": [edited]}, carried[1]], betas=betas)
    by_reference = [TASK, system(change("tool_removal", "read_file")), assistant("Nothing to read."), TASK]
    plain = ask(
        server,
        by_reference,
        betas=("compact-2026-09-04", BETA_TOOL_CHANGES),
        compaction={"type": "summarize"},
    )
    assert plain.content[0].tool_changes is None  # not computed without inline-tools-2026-09-15
