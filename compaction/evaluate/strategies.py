"""The strategies the evaluation compares: each one a list of layers for a ``Compactor``.

- ``none``: no layer; the list only grows.
- ``masking 3``, ``masking 10``, ``masking 10 + used``: observation masking (Lindenbauer et al.,
  "The Complexity Trap", arXiv 2508.21433): before every call, all but the newest N tool results are
  replaced by a short placeholder: ``Micro`` with ``keep_recent=N`` on every turn (``masking(N)``:
  no trigger, no batch). The paper keeps the last 10 turns; our agent makes one tool call per turn
  almost always, so N results are about N turns. ``+ used``: each placeholder keeps the lines of its
  result the agent used later (``compaction.core.used``).
- ``summary only``: a summary when over the threshold, no cheap layer.
- ``pipeline``: the Compactor's default list (``default_layers()``), its summaries carrying the
  state ledger (``compaction.layers.ledger``) and its summary request sharing the agent's cached
  prefix (``Summary(share_cache=True)``, given the agent's system prompt and tools when the run knows
  them: the offline agent's, ``build(agent=...)``).
- ``pipeline, no ledger``: the default list with ``ledger_tokens=0`` on its summary and reactive
  layers; ``pipeline + used``: with ``keep_used=2`` on its micro, whose placeholders keep the lines
  the agent used later (``changed``: one setting each, the rest as the default list has it).
- ``hybrid``: masking 10 on every turn, and a summary only when masking is not enough.
- ``recent turns``: the Java port's design (``compaction.layers.recent_turns.RecentTurns``).
- ``server summarize``: on-demand compaction by the API over the summary threshold
  (``compaction.layers.server_summary.ServerSummary``); the manual compact tool asks it too.
- ``masking 10 + memory``, ``pipeline, no ledger + memory``, ``pipeline + memory``: the strategy with
  the memory tool offered to the agent, which keeps its own notes (``compaction.evaluate.notes``: the
  offline sessions only, scored with one read of the notes); the second has the notes in place of the
  ledger. ``build`` takes the strategy without ``+ memory``; the replay offers the tool.
- ``pipeline, cache-blind``: the layers with their own defaults (``[Budget(), Micro(), Summary(),
  Reactive()]``, the default list before issue 20): the summary request does not share the agent's
  cached prefix, and micro clears whatever is old past half the threshold, whether or not the
  reads it saves pay for the cache it breaks. Not in the default comparison (``ON_REQUEST``):
  ``--strategy`` names it.

``build`` returns the ``Compactor`` for one session: its hooks go to ``run_agent``, its ``passes``
prepare one call pass by pass (so the replay can say which pass lost a probe), and a learner's own
list can replace a strategy's (``settings={"layers": [...]}``).
Deliberately left out: strategies that need the real API (its server-side context management).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from compaction.core.store import OutputStore
from compaction.evaluate.strategy_names import (  # noqa: F401 - public here too
    COMPARED,
    ON_REQUEST,
    STRATEGIES,
    WITH_MEMORY,
    split,
)
from compaction.layers.budget import Budget
from compaction.layers.layer import Layer
from compaction.layers.micro import Micro
from compaction.layers.reactive import Reactive
from compaction.layers.recent_turns import RecentTurns
from compaction.layers.server_summary import ServerSummary
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor, default_layers

USED_LINES = 2  # lines of a cleared result the "+ used" strategies keep (compaction.core.used)


def masking(keep: int, keep_used: int = 0) -> Micro:
    """Observation masking as a micro layer: all but the newest ``keep`` results cleared on every call."""
    return Micro(keep_recent=keep, trigger=0.0, clear_at_least=0, keep_used=keep_used)


def changed(layers: list[Layer], **settings: Mapping[str, Any]) -> list[Layer]:
    """The layers, those named in ``settings`` (``micro={"keep_used": 2}``) with those settings changed."""
    return [replace(layer, **settings[layer.name]) if layer.name in settings else layer for layer in layers]


# strategy -> a fresh list of its layers
STRATEGY_LAYERS: dict[str, Callable[[], list[Layer]]] = {
    "none": list,
    "masking 3": lambda: [masking(3)],
    "masking 10": lambda: [masking(10)],
    "masking 10 + used": lambda: [masking(10, keep_used=USED_LINES)],
    "summary only": lambda: [Summary(), Reactive()],
    "pipeline": default_layers,
    "pipeline, no ledger": lambda: changed(
        default_layers(), summary={"ledger_tokens": 0}, reactive={"ledger_tokens": 0}
    ),
    "pipeline + used": lambda: changed(default_layers(), micro={"keep_used": USED_LINES}),
    "hybrid": lambda: [masking(10), Summary(), Reactive()],
    "recent turns": lambda: [RecentTurns()],
    "server summarize": lambda: [ServerSummary()],
    "pipeline, cache-blind": lambda: [Budget(), Micro(), Summary(), Reactive()],
}


def with_agent_framing(layers: list[Layer], agent: Mapping[str, Any] | None) -> list[Layer]:
    """The layers, each ``Summary(share_cache=True)`` given the agent's system prompt and tools.

    ``agent`` holds ``system`` and ``tools`` as the agent sends them; what a layer's ``options``
    already set is kept. None (a recording, whose framing is unknown) leaves the layers as they are.
    """
    if not agent:
        return list(layers)
    out: list[Layer] = []
    for layer in layers:
        if isinstance(layer, Summary) and layer.share_cache:
            framing = {k: agent[k] for k in ("system", "tools") if agent.get(k) is not None}
            layer = replace(layer, options={**framing, **dict(layer.options)})
        out.append(layer)
    return out


def build(
    name: str,
    *,
    window: int,
    client: Any,
    folder: str | Path,
    workspace: str | Path | None = None,
    settings: Mapping[str, Any] | None = None,
    agent: Mapping[str, Any] | None = None,
) -> Compactor:
    """A fresh ``Compactor`` for strategy ``name``; store and transcripts go in the workspace (or ``folder``).

    ``settings`` override the Compactor's arguments (``layers``: a learner's own list in place of the
    strategy's; ``threshold``, ``counter``, ``recorded``...). ``agent``: the agent's ``system`` and
    ``tools``, for a summary that shares its cache (``with_agent_framing``); None when they are
    unknown (a recording).
    """
    if split(name)[1] and split(name)[0] in STRATEGY_LAYERS:
        raise ValueError(
            f"{name}: the notes are the live agent's own; replay it on an offline session (replay_offline)"
        )
    if name not in STRATEGY_LAYERS:
        raise ValueError(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES + ON_REQUEST)}")
    # inside the workspace, so the paths a summary or marker shows are short and the same every run
    workspace = Path(workspace if workspace is not None else folder)
    settings = dict(settings or {})
    layers = settings.pop("layers", None)
    layers = STRATEGY_LAYERS[name]() if layers is None else list(layers)
    return Compactor(
        **{
            "layers": with_agent_framing(layers, agent),
            "store": OutputStore(workspace / ".task_outputs", base=workspace),
            "client": client,
            "transcript_dir": workspace / ".transcripts",
            "workspace": workspace,
            "context_window": window,
            **settings,
        }
    )
