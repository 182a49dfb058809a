"""An agent framework nobody here wrote, through its Anthropic integration, against connect()'s base URL.

Pydantic AI (``pydantic-ai-slim[anthropic]``, the test extra) is the framework: the registry list ranks
``pydantic-ai-slim`` among the 150 most downloaded packages, it drives the real SDK (an
``AsyncAnthropic`` client it is handed), and it speaks the API's own compaction
(``AnthropicCompaction`` sends ``compact_20260112``, and it sends the returned block back as a
``CompactionPart``). Its agent gets a user's ``read_file`` tool and the user's task; the offline server,
at the course's scale (a trigger under the API's 50,000-token minimum), compacts on the way. Pydantic
AI needs Python 3.11, so on 3.10 the test is skipped with that reason. With its default ``max_tokens`` it
streams every request, which the offline server answers as server-sent events (``server/streaming.py``).
"""

from __future__ import annotations

import json
import sys

import anthropic
import httpx
import pytest

from compaction.agent.backend import DEFAULT_MODEL, connect

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="pydantic-ai-slim needs Python 3.11+")

FILES = {
    "src/a.py": "def add(a, b):\n    return a + b\n",
    "src/b.py": "from a import add\nprint(add(2, 3))\n",
}


def test_pydantic_ai_calls_only_the_users_tool_and_finishes_through_a_compaction():
    from pydantic_ai import Agent
    from pydantic_ai.messages import CompactionPart, ModelResponse, ToolCallPart
    from pydantic_ai.models.anthropic import AnthropicCompaction, AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    offline = connect(course_scale=True)  # the server's own option: a trigger under 50,000 tokens
    streamed: list[bool] = []

    async def record(request: httpx.Request) -> None:
        streamed.append(json.loads(request.read()).get("stream") is True)

    client = anthropic.AsyncAnthropic(
        api_key=offline.api_key,
        base_url=offline.base_url,
        default_headers=dict(offline._custom_headers),
        http_client=anthropic.DefaultAsyncHttpxClient(event_hooks={"request": [record]}),
    )
    model = AnthropicModel(DEFAULT_MODEL, provider=AnthropicProvider(anthropic_client=client))
    agent = Agent(model, capabilities=[AnthropicCompaction(token_threshold=150)])
    read: list[str] = []

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file of the user's project and return its text."""
        read.append(path)
        return FILES.get(path, f"no such file: {path}")

    result = agent.run_sync("Read src/a.py and src/b.py, then say what they do.")
    responses = [m for m in result.all_messages() if isinstance(m, ModelResponse)]
    calls = [p for m in responses for p in m.parts if isinstance(p, ToolCallPart)]
    assert {c.tool_name for c in calls} == {"read_file"} and set(read) == set(FILES)
    assert any(isinstance(p, CompactionPart) for m in responses for p in m.parts)  # sent back and accepted
    assert result.output.startswith("Done:") and len(responses) <= 12
    assert streamed and all(streamed)  # its default max_tokens makes it stream: served as server-sent events
