"""The strategies the evaluation compares, each as hooks for the agent loop and a list of passes.

- ``none``: the list only grows.
- ``masking 3``, ``masking 10``, ``masking 10 + used``: observation masking (Lindenbauer et al.,
  "The Complexity Trap", arXiv 2508.21433): before every call, all but the newest N tool results are
  replaced by a short placeholder (``micro_compact`` with ``keep_recent=N``, on every turn). The
  paper keeps the last 10 turns; our agent makes one tool call per turn almost always, so N results
  are about N turns.
  ``+ used``: each placeholder keeps the lines of its result the agent used later (``compaction.core.used``).
- ``summary only``: the ``Compactor`` with no cheap layer: a summary when over the threshold.
- ``pipeline``: the ``Compactor`` with its default list of layers (only the window is set), its
  summaries carrying the state ledger (``compaction.layers.ledger``) and its summary request sharing
  the agent's cached prefix (``Summary(share_cache=True)``, given the agent's system prompt and tools
  when the run knows them: the offline agent's, ``build(agent=...)``).
- ``pipeline, no ledger``: the default list with ``ledger_tokens=0`` on its summary and reactive
  layers; ``pipeline + used``: with ``keep_used=2`` on its micro, whose placeholders keep the lines
  the agent used later (``changed``: one setting each, the rest as the default list has it).
- ``hybrid``: masking 10 on every turn, and a summary only when masking is not enough.

The three ``Compactor`` strategies are plain lists of layers (``PIPELINES``), a learner's list can
replace one (``settings={"layers": [...]}``).
- ``pipeline, cache-blind``: the layers with their own defaults (``[Budget(), Micro(), Summary(),
  Reactive()]``, the default list before issue 20): the summary request does not share the agent's
  cached prefix, and micro clears whatever is old past half the threshold, whether or not the
  reads it saves pay for the cache it breaks. Not in the default comparison (``ON_REQUEST``):
  ``--strategy`` names it.
- ``recent turns``: the Java port's design (``compaction.pipeline.recent_turns.RecentTurns``).
- ``server summarize``: on-demand compaction by the API over the summary threshold
  (``compaction.evaluate.server_summarize``); the manual compact tool asks it too.

``build`` returns a ``Keeper``: the hooks ``run_agent`` takes, and ``passes(messages)``, which
runs one preparation and returns each pass by name, so the replay can say which pass lost a probe.
Deliberately left out: strategies that need the real API (its server-side context management).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from compaction.core.events import CompactionEvent
from compaction.core.store import OutputStore
from compaction.evaluate.server_summarize import ServerSummarize
from compaction.layers.budget import Budget
from compaction.layers.layer import Layer
from compaction.layers.micro import Micro, micro_compact
from compaction.layers.reactive import Reactive
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor, default_layers
from compaction.pipeline.recent_turns import RecentTurns

COMPARED = (
    "none", "masking 3", "masking 10", "masking 10 + used", "summary only", "pipeline", "pipeline, no ledger",
    "pipeline + used", "hybrid", "recent turns",
)  # fmt: skip
ON_REQUEST = ("pipeline, cache-blind",)  # named with --strategy, not in the default comparison
STRATEGIES = COMPARED + ("server summarize",)  # the comparison's (chapter 13), and the API's own
USED_LINES = 2  # lines of a cleared result the "+ used" strategies keep (compaction.core.used)
Passes = list[tuple[str, list[dict]]]  # (pass name, the list after it), the input first
# strategy -> its list of layers, for the strategies the Compactor runs
PIPELINES: dict[str, Callable[[], list[Layer]]] = {
    "summary only": lambda: [Summary(), Reactive()],
    "pipeline": default_layers,
    "pipeline, no ledger": lambda: changed(
        default_layers(), summary={"ledger_tokens": 0}, reactive={"ledger_tokens": 0}
    ),
    "pipeline + used": lambda: changed(default_layers(), micro={"keep_used": USED_LINES}),
    "hybrid": lambda: [Micro(keep_recent=10, trigger=0.0, clear_at_least=0), Summary(), Reactive()],
    "pipeline, cache-blind": lambda: [Budget(), Micro(), Summary(), Reactive()],
}


def changed(layers: list[Layer], **settings: Mapping[str, Any]) -> list[Layer]:
    """The layers, those named in ``settings`` (``micro={"keep_used": 2}``) with those settings changed."""
    return [replace(layer, **settings[layer.name]) if layer.name in settings else layer for layer in layers]


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


class Keeper:
    """One strategy, ready for one session: hooks for ``run_agent`` and per-pass preparation."""

    def __init__(
        self,
        name: str,
        passes: Callable[[list[dict]], Passes],
        *,
        compactor: Compactor | None = None,
        recent: RecentTurns | None = None,
    ):
        self.name, self._passes = name, passes
        self.compactor, self.recent = compactor, recent
        self.on_passes: Callable[[str, Passes], None] | None = None  # the replay's observer

    @property
    def events(self) -> list[CompactionEvent]:
        """The compaction events so far (the Compactor's; none for the other strategies)."""
        return list(self.compactor.events) if self.compactor is not None else []

    def counts(self) -> dict[str, int]:
        """How often each layer fired (the manual compact of recent turns counts as ``compact``)."""
        if self.compactor is not None:
            return self.compactor.counts()
        if self.recent is not None:
            return {"compact": self.recent.compactions}
        return {}

    def passes(self, messages: list[dict]) -> Passes:
        """One preparation before a model call, pass by pass."""
        out = self._passes(messages)
        if self.on_passes is not None:
            self.on_passes("prepare", out)
        return out

    def prepare(self, messages: list[dict]) -> list[dict]:
        """One preparation before a model call: the list to send."""
        return self.passes(messages)[-1][1]

    def hooks(self) -> dict[str, Callable[..., Any]]:
        """The hooks for ``run_agent``: prepare, and the Compactor's or recent turns' others."""
        hooks: dict[str, Callable[..., Any]] = {"prepare": self.prepare}
        if self.compactor is not None:
            hooks.update({k: v for k, v in self.compactor.agent_hooks().items() if k != "prepare"})
            hooks["on_prompt_too_long"] = self._watched("reactive", hooks["on_prompt_too_long"])
            hooks["on_compact"] = self._watched("compact", hooks["on_compact"])
        elif self.recent is not None:
            hooks["on_compact"] = self._watched("compact", self.recent.compact)
        return hooks

    def _watched(self, layer: str, hook: Callable[..., list[dict]]) -> Callable[..., list[dict]]:
        def run(messages: list[dict], *args: Any) -> list[dict]:
            out = hook(messages, *args)
            if self.on_passes is not None:
                self.on_passes(layer, [("input", messages), (layer, out)])
            return out

        return run


class ServerKeeper(Keeper):
    """The ``server summarize`` strategy: its layer runs before each call and on the compact tool."""

    def __init__(self, name: str, layer: ServerSummarize):
        super().__init__(name, lambda m: [("input", m), (name, layer(m))])
        self.layer = layer

    def counts(self) -> dict[str, int]:
        """Compactions the server made, counted as summaries."""
        return {"summary": self.layer.compactions}

    def hooks(self) -> dict[str, Callable[..., Any]]:
        """Prepare, and the compact tool answered by an on-demand compaction."""
        return {**super().hooks(), "on_compact": self._watched("compact", self.layer.compact)}


def build(
    name: str,
    *,
    window: int,
    client: Any,
    folder: str | Path,
    workspace: str | Path | None = None,
    settings: Mapping[str, Any] | None = None,
    agent: Mapping[str, Any] | None = None,
) -> Keeper:
    """A fresh ``Keeper`` for strategy ``name``; store and transcripts go in the workspace (or ``folder``).

    ``settings`` override the Compactor's arguments for the Compactor-based strategies (``layers``:
    a learner's own list in place of the strategy's), or ``keep_turns``/``max_chars`` for recent turns.
    ``agent``: the agent's ``system`` and ``tools``, for a summary that shares its cache
    (``with_agent_framing``); None when they are unknown (a recording).
    """
    if name not in STRATEGIES + ON_REQUEST:
        raise ValueError(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES + ON_REQUEST)}")
    # inside the workspace, so the paths a summary or marker shows are short and the same every run
    workspace = Path(workspace if workspace is not None else folder)
    transcripts = workspace / ".transcripts"
    settings = dict(settings or {})
    if name == "none":
        return Keeper(name, lambda m: [("input", m)])
    if name.startswith("masking"):
        keep, used = int(name.split()[1]), USED_LINES if name.endswith("+ used") else 0
        return Keeper(
            name, lambda m: [("input", m), ("masking", micro_compact(m, keep_recent=keep, keep_used=used))]
        )
    if name == "server summarize":
        return ServerKeeper(name, ServerSummarize(client, window=window, **settings))
    if name == "recent turns":
        recent = RecentTurns(client=client, transcript_dir=transcripts, **settings)
        return Keeper(name, lambda m: [("input", m), ("recent turns", recent.prepare(m))], recent=recent)
    layers = settings.pop("layers", None)
    if layers is None:
        layers = PIPELINES[name]()
    options: dict[str, Any] = {"context_window": window, "layers": with_agent_framing(layers, agent)}
    compactor = Compactor(
        store=OutputStore(workspace / ".task_outputs", base=workspace),
        client=client,
        transcript_dir=transcripts,
        workspace=workspace,
        **{**options, **settings},
    )
    return Keeper(name, compactor.steps, compactor=compactor)
