"""Each command of ``python -m compaction`` imports only what it needs.

``--help`` of every command loads neither the SDK, nor detect-secrets, nor the tokenizer, nor any of
the notebook stack, nor the modules that run a command (its options are apart from them); a replay
that makes no request never loads the SDK, nor does one whose summary requests go to the offline
model (answered in the process: ``compaction.offline.direct``), and no command loads the notebook
stack. Each case runs in a fresh interpreter, which then lists what it imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK = ("anthropic", "httpx", "httpx2", "pydantic")
NOTEBOOK = ("IPython", "ipywidgets", "ipykernel", "matplotlib", "nbformat", "jupyter_client", "jupyterlab")
HEAVY = (*SDK, *NOTEBOOK, "detect_secrets", "tiktoken")
# what runs a command, which ``--help`` never needs: the runners, the replay engine, the pipeline
RUNNERS = (
    "compaction.agent.demo",
    "compaction.evaluate.cli",
    "compaction.evaluate.replay.command",
    "compaction.evaluate.replay.engine",
    "compaction.pipeline.compactor",
)
RUN = """
import json, sys
from compaction.__main__ import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
heavy, runners = {heavy!r}, {runners!r}
loaded = sorted(({{m.split(".")[0] for m in sys.modules}} & set(heavy)) | (set(sys.modules) & set(runners)))
open(sys.argv[1], "w").write(json.dumps(loaded))
"""


def imported(tmp_path: Path, *args: str, out: list[str] | None = None) -> set[str]:
    """The heavy packages and runner modules ``python -m compaction ARGS`` imported (a fresh process).

    ``out``, when given, receives what the command printed."""
    listed = tmp_path / "loaded.json"
    env = {**os.environ, "COMPACTION_BACKEND": "offline", "COLUMNS": "200"}
    code = RUN.format(heavy=HEAVY, runners=RUNNERS)
    done = subprocess.run(
        [sys.executable, "-c", code, str(listed), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert listed.exists(), done.stderr
    if out is not None:
        out.append(done.stdout)
    return set(json.loads(listed.read_text()))


def claude_code_file(path: Path, turns: int, result_chars: int) -> Path:
    """A Claude Code session of ``turns`` tool calls with results of ``result_chars`` characters."""
    records, parent = [], None
    for n, (kind, content) in enumerate(
        [("user", "Fix the failing tests.")]
        + [
            entry
            for i in range(turns)
            for entry in (
                (
                    "assistant",
                    [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{i:04d}",
                            "name": "Bash",
                            "input": {"command": "ls"},
                        }
                    ],
                ),
                (
                    "user",
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{i:04d}",
                            "content": f"{i} " * (result_chars // 2),
                        }
                    ],
                ),
            )
        ]
    ):
        records.append(
            {
                "type": kind,
                "uuid": f"r{n}",
                "parentUuid": parent,
                "message": {"role": kind, "content": content},
            }
        )
        parent = f"r{n}"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("command", ["demo", "evaluate", "replay"])
def test_help_loads_nothing_heavy(tmp_path, command):
    assert imported(tmp_path, command, "--help") == set()


def test_the_top_level_help_loads_nothing_heavy(tmp_path):
    assert imported(tmp_path, "--help") == set()


def test_a_replay_that_asks_the_model_nothing_never_loads_the_sdk(tmp_path):
    session = claude_code_file(tmp_path / "s.jsonl", turns=6, result_chars=400)
    loaded = imported(tmp_path, "replay", str(session))
    assert loaded & set(SDK) == set()
    assert loaded & set(NOTEBOOK) == set()
    assert "detect_secrets" in loaded  # what it shows is scanned for secrets first
    assert "compaction.evaluate.replay.command" in loaded and "compaction.agent.demo" not in loaded


def test_a_replay_whose_summaries_the_offline_model_writes_never_loads_the_sdk(tmp_path):
    session = claude_code_file(tmp_path / "s.jsonl", turns=30, result_chars=4_000)
    printed: list[str] = []
    args = ("replay", str(session), "--window", "20000", "--strategy", "summary only")
    loaded = imported(tmp_path, *args, out=printed)
    assert "summary x" in printed[0]  # a summary request was made and answered
    assert loaded & set(SDK) == set()
    assert loaded & set(NOTEBOOK) == set()
