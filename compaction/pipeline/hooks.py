"""The four places where compaction plugs into the agent loop, as one value.

``run_agent(client, hooks=Hooks(...))`` calls, each when it is set:

- ``prepare(messages)`` before every model call: its output is what is sent and kept;
- ``on_response(messages_sent, response)`` after each successful call (the estimate anchors on its usage);
- ``on_prompt_too_long(messages, error)`` once after the API refused the list as too big for the
  window (or an answer stopped at the window): a smaller list to send again;
- ``on_compact(messages, focus)`` when the model calls the ``compact`` tool: the list that goes on.

``Compactor.hooks()`` builds all four from its layers; a learner's own function fits any one of them
(``Hooks(prepare=my_prepare)``). Deliberately left out: anything that decides how to compact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Prepare = Callable[[list], list]


@dataclass(frozen=True)
class Hooks:
    """What the agent loop calls around a model call; None where nothing plugs in."""

    prepare: Prepare | None = None
    on_response: Callable[[list, Any], None] | None = None
    on_prompt_too_long: Callable[[list, BaseException], list] | None = None
    on_compact: Callable[[list, str | None], list] | None = None
