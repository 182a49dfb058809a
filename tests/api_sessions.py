"""Sessions and checks shared by the tests of the offline server's caching and context management.

``tool_session(n)`` is a review session of ``n`` read_file calls, each answered with a
medium-sized file; ``strict`` validates a raw JSON answer against the SDK's own pydantic type
(the SDK itself builds responses without validation); ``private_server`` is an offline server on
a clock the test moves.
"""

from __future__ import annotations

import anthropic

from compaction.agent.backend import loopback_http_client
from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.offline import OfflineServer
from compaction.offline.server.caching import ManualClock

MODEL = "any-model-name"
CONTEXT = "context-management-2025-06-27"
COMPACT = "compact-2026-01-12"
TOOLS = [
    {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}},
    {"name": "bash", "description": "Run a command.", "input_schema": {"type": "object"}},
]


def file_text(k: int) -> str:
    """The content of module ``k`` of the review session (about 370 tokens)."""
    return f"def f{k}():\n    return {k}\n" * 40


def tool_session(n: int, *, tools: tuple[str, ...] = ("read_file",)) -> list[dict]:
    """A user task, then ``n`` turns that each call one tool (cycling ``tools``), ending with a result."""
    messages = [user("Review every module.")]
    for k in range(n):
        name = tools[k % len(tools)]
        call = tool_use(f"toolu_{k:02d}", name, {"path": f"m{k}.py"})
        messages.append(assistant(text(f"Reading module {k}."), call))
        messages.append(user(tool_result(f"toolu_{k:02d}", file_text(k))))
    return messages


def strict(model: type, raw: dict):
    """``raw`` validated against the SDK's pydantic model (fails on any missing or wrong field)."""
    return model.model_validate(raw, strict=False)


def private_server(clock: ManualClock) -> OfflineServer:
    """An offline server of its own (its own prompt cache) on a clock the test moves; call start()."""
    return OfflineServer(clock=clock)


def client_for(server: OfflineServer, window: int = 200_000) -> anthropic.Anthropic:
    """An SDK client for ``server`` with the given window (sharing the process's one TLS context)."""
    headers = {"x-compaction-window": str(window)}
    return anthropic.Anthropic(
        api_key="offline",
        base_url=server.url,
        max_retries=0,
        default_headers=headers,
        http_client=loopback_http_client(),
    )
