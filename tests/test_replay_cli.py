"""``compaction replay``: a table per session, problems named by file and line, exit codes, the
report and the final contexts written, the input never touched, keys never printed."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

import pytest

from compaction import __main__ as cli
from compaction.core.messages import validate
from compaction.importers import RULES

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")
KEY = "sk-ant-api03-" + "Z9y8X7w6V5u4T3s2R1q0" * 3


@pytest.fixture(autouse=True)
def wide_terminal_and_private_temp(monkeypatch, tmp_path):
    """Tables wide enough not to wrap; the command's work folders under this test's tmp_path."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def record(kind, content):
    return json.dumps({"type": kind, "message": {"role": kind, "content": content}})


def session_file(path, middle=""):
    lines = [
        record("user", "fix the parser"),
        record("assistant", "looking"),
        middle,
        record("user", "go on"),
    ]
    path.write_text("\n".join(line for line in lines if line) + "\n")
    return path


def replay(capsys, *args):
    status = cli.main(["replay", *map(str, args)])
    out = capsys.readouterr().out
    return status, " ".join(out.split())  # rich wraps long lines: compare on single spaces


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest(), Path(path).stat().st_mtime_ns


@needs_data
def test_the_shared_claude_code_folder_prints_a_table_per_session_and_writes_the_report(capsys, tmp_path):
    status, out = replay(capsys, DATA / "claude-code-transcripts", "--report", tmp_path / "r.html")
    assert status == 0
    for name in (
        "edge_cases.jsonl",
        "representative_messages.jsonl",
        "session_b.jsonl",
        "todowrite_examples.jsonl",
    ):
        assert f"{name}: window 200,000 tokens" in out
    assert f"edge_cases.jsonl: malformed_record x2: {RULES['malformed_record']} line 10:" in out
    assert (tmp_path / "r.html").read_text().count('<section class="session">') == 4


@pytest.mark.parametrize(
    "middle, shown",
    [
        ("{not json", "s.jsonl: not_json x1:"),
        (json.dumps({"type": "progress"}), "s.jsonl: unknown_record x1:"),
        (json.dumps({"type": "user", "message": "oops"}), "s.jsonl: malformed_record x1:"),
        (
            record("user", [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]),
            "s.jsonl: orphan_tool_result x1:",
        ),
        (
            record("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            "s.jsonl: unanswered_tool_use x1:",
        ),
    ],
)
def test_each_malformed_case_is_named_by_file_and_line_and_the_file_is_unchanged(
    capsys, tmp_path, middle, shown
):
    path = session_file(tmp_path / "s.jsonl", middle)
    before = digest(path)
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 0
    rule = shown.split(": ")[1].split(" ")[0]
    assert f"{shown} {RULES[rule]} line 3: " in out  # the rule, what happened to the record, then where
    assert digest(path) == before


def test_a_truncated_last_line_is_named(capsys, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(record("user", "hi") + "\n" + record("assistant", "hello")[:25])
    status, out = replay(capsys, path, "--strategy", "none")
    assert (status, "s.jsonl: truncated_last_line x1: " in out, "skipped line 2: " in out) == (0, True, True)


@pytest.mark.parametrize("content", ["just some notes\n", '{"name": "pkg", "version": "1.0"}', ""])
def test_a_named_file_that_is_no_session_exits_2_with_one_line_naming_it(capsys, tmp_path, content):
    path = tmp_path / "notes.json"
    path.write_text(content)
    status, out = replay(capsys, path)
    assert status == 2
    assert out.startswith("error: notes.json: not a session: ")
    assert path.read_text() == content


def test_a_missing_path_and_a_folder_without_sessions_exit_2(capsys, tmp_path):
    assert replay(capsys, tmp_path / "absent")[0] == 2
    (tmp_path / "package.json").write_text('{"name": "x"}')
    status, out = replay(capsys, tmp_path)
    assert status == 2 and "no session found" in out and "skipped package.json: not a session" in out


def test_a_folder_replays_its_sessions_and_skips_other_json_files(capsys, tmp_path):
    session_file(tmp_path / "a.jsonl")
    (tmp_path / "package.json").write_text('{"name": "x"}')
    status, out = replay(capsys, tmp_path, "--strategy", "none")
    assert status == 0 and "a.jsonl: window" in out and "skipped package.json" in out


def test_save_final_writes_each_strategys_context_valid_and_redacted(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", record("assistant", f"the key is {KEY}"))
    status, out = replay(
        capsys, path, "--strategy", "none", "--strategy", "pipeline", "--save-final", tmp_path / "out"
    )
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s.none.json", "s.pipeline.json"]
    final = json.loads((tmp_path / "out" / "s.none.json").read_text())
    validate(final)
    assert KEY not in json.dumps(final) and "[redacted anthropic]" in json.dumps(final)


def test_a_key_in_a_problem_is_never_printed(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", json.dumps({"type": KEY}))
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 0 and KEY not in out and "[redacted anthropic]" in out


def test_the_format_can_be_given_instead_of_detected(capsys, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    )
    status, out = replay(capsys, path, "--format", "openai", "--strategy", "none")
    assert status == 0 and "openai-chat" in out


def test_a_small_window_shows_where_the_recorded_session_would_have_been_refused(capsys, tmp_path):
    lines = [record("user", "go")]
    for i in range(12):
        lines.append(
            record("assistant", [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"n": i}}])
        )
        lines.append(
            record("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "word " * 400}])
        )
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, out = replay(capsys, path, "--window", "3000", "--strategy", "none", "--strategy", "pipeline")
    assert status == 0
    assert "over the window from turn" in out
    assert "What left the context is on disk under" in out


def test_help_lists_replay_beside_demo(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "demo" in out and "replay" in out


def test_probes_given_in_a_file_are_scored_and_a_bad_probe_file_exits_2(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl")
    probes = {
        "probes": [{"id": "task", "kind": "instruction", "question": "what?", "evidence": ["fix the parser"]}]
    }
    (tmp_path / "p.json").write_text(json.dumps(probes))
    status, out = replay(capsys, path, "--strategy", "none", "--probes", tmp_path / "p.json")
    assert status == 0 and "1/1" in out
    (tmp_path / "bad.json").write_text(json.dumps({"probes": [{"id": "x", "kind": "guess"}]}))
    status, out = replay(capsys, path, "--probes", tmp_path / "bad.json")
    assert status == 2 and out.startswith("error: ") and "bad.json" in out


def test_the_real_backend_without_a_key_exits_2_and_prints_no_key(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    status, out = replay(capsys, session_file(tmp_path / "s.jsonl"), "--backend", "anthropic")
    assert status == 2 and out.startswith("error: ")


@needs_data
def test_sessions_far_from_the_window_get_a_verdict_and_one_row_for_identical_strategies(capsys, tmp_path):
    status, out = replay(capsys, DATA / "claude-code-transcripts", "--report", tmp_path / "r.html")
    assert status == 0
    assert "No session came near the window: the largest peak was 1,112 of 200,000 tokens" in out
    assert "no layer fired" in out
    assert out.count("(identical: nothing fired)") == 4  # one row for the four strategies, per session
    page = tmp_path / "r.html"
    html = page.read_text()
    assert "No session came near the window" in html
    assert html.count('class="timeline"') == 4  # one chart per session, not one per strategy


@needs_data
def test_the_terminal_and_the_report_share_labels_and_a_legend_and_name_the_title_record(capsys, tmp_path):
    status, out = replay(capsys, DATA / "claude-code-transcripts", "--report", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    for label in ("tokens sent", "cache breaks", "cost ($3/M input)", "probes kept", "left the context"):
        assert label in out and f"<th>{label}</th>" in html
    assert "freed" not in out.split("Legend:")[0]
    assert "Legend: peak/final = tokens (tiktoken cl100k)" in out
    assert "left out by design (never sent to the model): 1 title summary record" in out
    assert "Left out by design (never sent to the model): 1 title summary record" in html
    costs_out = set(re.findall(r"\$\d+\.\d+", out))
    costs_html = set(re.findall(r"\$\d+\.\d+", html))
    assert costs_out and costs_out == costs_html  # the same precision in both


def test_without_workdir_the_last_line_says_where_the_outputs_went(capsys, tmp_path):
    status, out = replay(capsys, session_file(tmp_path / "s.jsonl"))
    assert status == 0
    folders = list(tmp_path.glob("compaction-replay-*"))
    assert len(folders) == 1
    assert out.endswith(f"Outputs (persisted results, transcripts): {folders[0]}")
