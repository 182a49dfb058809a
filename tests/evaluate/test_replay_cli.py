"""``compaction replay``: a table per session on stdout, problems and refusals on stderr named by
the path as given and the line, exit codes, the report and the final contexts written, the input
never touched, keys never printed, no temporary folder left behind."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

import pytest

from compaction import __main__ as cli
from compaction.core.messages import validate
from compaction.evaluate import compare
from compaction.evaluate.replay import one_file
from compaction.evaluate.replay.columns import COLUMNS, dollars
from compaction.evaluate.window import RULE, replay_window
from compaction.importers import RULES, load
from compaction.importers.nesting import MAX_DEPTH

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
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


def streams(capsys, *args):
    """(status, stdout, stderr) of ``compaction replay ARGS``."""
    status = cli.main(["replay", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def replay(capsys, *args):
    """(status, stderr then stdout on single spaces): rich wraps long lines."""
    status, out, err = streams(capsys, *args)
    return status, " ".join((err + " " + out).split())


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
        messages = load(DATA / "claude-code-transcripts" / name).messages
        assert f"{name}: window {replay_window(messages):,} tokens" in out  # evaluate's own rule
    edge = DATA / "claude-code-transcripts" / "edge_cases.jsonl"
    assert f"{edge}: malformed_record x2: {RULES['malformed_record']} {edge}:line 10:" in out
    assert (tmp_path / "r.html").read_text().count('<section class="session">') == 4


@pytest.mark.parametrize(
    "middle, shown",
    [
        ("{not json", "s.jsonl: not_json x1:"),
        (json.dumps({"type": "telemetry"}), "s.jsonl: unknown_record x1:"),
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
    assert f"{shown} {RULES[rule]} {path}:line 3: " in out  # the rule, what happened to the record, where
    assert digest(path) == before


def test_a_truncated_last_line_is_named(capsys, tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [record("user", "hi"), record("assistant", "hello"), record("user", "and then")[:25]]
    path.write_text("\n".join(lines))
    status, out = replay(capsys, path, "--strategy", "none")
    assert (status, "s.jsonl: truncated_last_line x1: " in out, f"skipped {path}:line 3: " in out) == (
        0,
        True,
        True,
    )


def test_a_file_that_collapses_to_no_reply_of_the_model_exits_2_naming_why(capsys, tmp_path):
    """A session cut down to one user message exited 0 with '1 turns'."""
    path = tmp_path / "s.jsonl"
    path.write_text(record("user", "hi") + "\n" + record("assistant", "hello")[:25])
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 2
    assert (
        f"error: {path}: nothing to replay: no reply of the model to replay (2 records: 1 read as messages, "
        in out
    )
    assert "1 skipped (1 truncated_last_line)" in out


@pytest.mark.parametrize("content", ["just some notes\n", '{"name": "pkg", "version": "1.0"}', ""])
def test_a_named_file_that_is_no_session_exits_2_with_one_line_naming_it(capsys, tmp_path, content):
    path = tmp_path / "notes.json"
    path.write_text(content)
    status, out = replay(capsys, path)
    assert status == 2
    assert out.startswith(f"error: {path}: not a session: ")  # the path as given
    assert path.read_text() == content


def test_a_missing_path_and_a_folder_without_sessions_exit_2(capsys, tmp_path):
    assert replay(capsys, tmp_path / "absent")[0] == 2
    (tmp_path / "package.json").write_text('{"name": "x"}')
    status, out = replay(capsys, tmp_path)
    assert status == 2 and "no session found" in out and "package.json: skipped, not a session" in out


def test_a_folder_replays_its_sessions_and_skips_other_json_files(capsys, tmp_path):
    session_file(tmp_path / "a.jsonl")
    (tmp_path / "package.json").write_text('{"name": "x"}')
    status, out = replay(capsys, tmp_path, "--strategy", "none")
    assert status == 3 and "a.jsonl: window" in out and "package.json: skipped" in out
    assert "1 skipped (each named above); exit status 3" in out


def test_save_final_writes_each_strategys_context_valid_and_redacted(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", record("assistant", f"the key is {KEY}"))
    status, out = replay(
        capsys, path, "--strategy", "none", "--strategy", "pipeline", "--save-final", tmp_path / "out"
    )
    assert status == 0
    # no layer fired in a session this short: the pipeline's final context is none's, written once
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s.none.json"]
    assert "pipeline: the same final context as none (s.none.json), not written again" in out
    final = json.loads((tmp_path / "out" / "s.none.json").read_text())
    validate(final)
    assert KEY not in json.dumps(final) and "[redacted anthropic]" in json.dumps(final)


def test_save_final_writes_a_context_that_differs_from_none_under_its_own_name(capsys, tmp_path):
    lines = [record("user", "read them all")]
    for i in range(14):
        call = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"n": i}}
        lines.append(record("assistant", [call]))
        lines.append(
            record("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"w{i} " * 300}])
        )
    lines.append(record("assistant", "done"))
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n")
    args = ("--strategy", "none", "--strategy", "masking 10", "--save-final", tmp_path / "out")
    status, out = replay(capsys, path, *args)
    assert status == 0 and "not written again" not in out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["long.masking-10.json", "long.none.json"]


def test_sessions_that_share_a_file_name_in_subfolders_are_saved_apart(capsys, tmp_path):
    (tmp_path / "in" / "a").mkdir(parents=True)
    (tmp_path / "in" / "b").mkdir()
    session_file(tmp_path / "in" / "a" / "s.jsonl")
    (tmp_path / "in" / "b" / "s.jsonl").write_text(
        record("user", "another task") + "\n" + record("assistant", "ok") + "\n"
    )
    status, out = replay(capsys, tmp_path / "in", "--strategy", "none", "--save-final", tmp_path / "out")
    assert status == 0
    a = json.loads((tmp_path / "out" / "a" / "s.none.json").read_text())
    b = json.loads((tmp_path / "out" / "b" / "s.none.json").read_text())
    assert "fix the parser" in json.dumps(a) and "another task" in json.dumps(b)


def test_the_same_file_name_given_twice_is_never_overwritten_in_one_run(capsys, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    first = session_file(tmp_path / "x" / "s.jsonl")
    second = tmp_path / "y" / "s.jsonl"
    second.write_text(record("user", "another task") + "\n" + record("assistant", "ok") + "\n")
    args = ("--strategy", "none", "--save-final", tmp_path / "out")
    status, out = replay(capsys, first, second, *args)
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s.none.json", "s~2.none.json"]
    assert "another task" in (tmp_path / "out" / "s~2.none.json").read_text()


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
    status, out = replay(
        capsys,
        path,
        "--window",
        "3000",
        "--strategy",
        "none",
        "--strategy",
        "pipeline",
        "--workdir",
        tmp_path,
    )
    assert status == 0
    assert "over the window from turn" in out
    assert f"What left the context is on disk under {tmp_path / 'long'}" in out


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


@pytest.mark.parametrize(
    ("option", "where", "said"),
    [
        ("--report", "absent/r.html", "the folder"),  # its folder is missing
        ("--report", "", "a folder is there, and it must be a file"),
        ("--save-final", "s.jsonl", "a file is there, and it must be a folder"),
        ("--workdir", "s.jsonl", "a file is there, and it must be a folder"),
    ],
)
def test_an_output_path_that_cannot_be_written_exits_2_before_any_replay(
    capsys, tmp_path, option, where, said
):
    path = session_file(tmp_path / "s.jsonl")
    status, out = replay(capsys, path, "--strategy", "none", option, tmp_path / where)
    assert status == 2 and out.startswith(f"error: {option} ") and said in out
    assert "window" not in out  # no table: nothing was replayed


def test_a_probe_file_that_is_not_utf8_exits_2_naming_it_and_the_byte(capsys, tmp_path):
    data = b'{"probes": [{"id": "caf\xe9"}]}'
    (tmp_path / "p.json").write_bytes(data)
    status, out = replay(capsys, session_file(tmp_path / "s.jsonl"), "--probes", tmp_path / "p.json")
    assert status == 2 and f"p.json: not UTF-8 text (byte {data.index(0xE9) + 1} is 0xe9)" in out


def test_an_unreadable_file_in_a_folder_is_skipped_and_named(capsys, tmp_path, monkeypatch):
    session_file(tmp_path / "a.jsonl")
    session_file(tmp_path / "b.jsonl")
    real_load = one_file.load_all

    def load_all(path, *args):
        if Path(path).name == "b.jsonl":  # as a file root owns reads to another user
            raise PermissionError(13, "Permission denied", str(path))
        return real_load(path, *args)

    monkeypatch.setattr(one_file, "load_all", load_all)
    status, out = replay(capsys, tmp_path, "--strategy", "none", "--jobs", "1")  # in this process
    assert status == 3 and "a.jsonl: window" in out
    assert "b.jsonl: skipped, cannot be read (Permission denied)" in out
    status, out = replay(capsys, tmp_path / "b.jsonl")
    assert status == 2 and "b.jsonl: cannot be read (Permission denied)" in out


def test_the_real_backend_without_a_key_exits_2_and_prints_no_key(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    status, out = replay(capsys, session_file(tmp_path / "s.jsonl"), "--backend", "anthropic")
    assert status == 2 and out.startswith("error: ")


@needs_data
def test_sessions_far_from_the_window_get_a_verdict_and_one_row_for_identical_strategies(capsys, tmp_path):
    status, out = replay(capsys, DATA / "claude-code-transcripts", "--report", tmp_path / "r.html")
    assert status == 0
    assert "No session reached the summary threshold: the largest peak was 1,112 of 4,000 tokens" in out
    assert "no layer fired" in out
    merged = (
        "none, masking 10, summary only and pipeline: the same result, since no layer fired in any of them"
    )
    assert out.count("the same result") == 4  # one row for the four strategies, per session
    page = tmp_path / "r.html"
    html = page.read_text()
    assert html.count(f">{merged}</td>") == 4  # in words: a sentence, not a list and a bracket
    assert "No session reached the summary threshold" in html
    assert html.count('class="timeline"') == 4  # one chart per session, not one per strategy


@needs_data
def test_the_terminal_and_the_report_share_labels_and_a_legend_and_name_the_title_record(capsys, tmp_path):
    status, out = replay(capsys, DATA / "claude-code-transcripts", "--report", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    for label in ("tokens sent", "cache breaks", COLUMNS[7], "probes kept", "left the context"):
        assert label in out and f"<th>{label}</th>" in html
    assert "freed" not in out.split("Legend:")[0]
    assert "Legend: peak/final = tokens (tiktoken cl100k)" in out
    assert "left out by design (never sent to the model): 1 title summary record" in out
    assert "Left out by design (never sent to the model): 1 title summary record" in html
    costs_out = set(re.findall(r"\$\d+\.\d+", out))
    costs_html = set(re.findall(r"\$\d+\.\d+", html))
    assert costs_out and costs_out == costs_html  # the same precision in both


def test_without_workdir_nothing_is_left_in_the_temp_folder_and_with_it_the_last_line_says_where(
    capsys, tmp_path
):
    status, out = replay(capsys, session_file(tmp_path / "s.jsonl"))
    assert status == 0
    assert list(tmp_path.glob("compaction-replay-*")) == []
    assert "Outputs (persisted results" not in out
    status, out = replay(capsys, tmp_path / "s.jsonl", "--workdir", tmp_path / "kept")
    assert out.endswith(f"Outputs (persisted results, transcripts): {tmp_path / 'kept'}")


def test_tables_go_to_stdout_and_problems_and_refusals_to_stderr(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", "{not json")
    status, out, err = streams(capsys, path, "--strategy", "none")
    assert status == 0 and "not_json" in err and f"{path}:line 3" not in out  # out counts it, err names it
    assert f"{path}: window" in out and "window" not in err
    status, out, err = streams(capsys, tmp_path / "absent")
    assert status == 2 and out == "" and err.startswith(f"error: {tmp_path / 'absent'}: no such file")


def test_a_line_cut_in_a_string_says_at_once(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", '{"type": "user", "message": "an unterminated \u0001')
    path.write_text(path.read_text().replace("\\u0001", "\x01"))
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 0 and "not_json" in out and " at at " not in out


def test_a_record_nested_too_deep_is_skipped_and_named(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl", "[" * 50_000 + "]" * 50_000)
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 0
    assert f"{path}:line 3: nested deeper than {MAX_DEPTH}" in out and "too_deep x1" in out


def test_a_window_smaller_than_the_first_message_is_refused_up_front_and_on_every_row(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl")
    status, out, err = streams(capsys, path, "--window", "3")
    assert status == 0
    (line,) = [line for line in err.splitlines() if "refused" in line]
    assert line.startswith(f"{path}: refused before turn 1: the first message alone is ")
    flat = " ".join(out.split())
    assert "masking 10, summary only and" in flat and "the same result" in flat  # one row for the three
    assert flat.count("refused at turn 1: the first message alone is") == 1
    assert "over the window from turn 1" in flat  # none goes on, to show how far over


def test_a_failed_summary_is_a_row_that_says_why_and_the_next_strategy_runs(capsys, tmp_path):
    lines = [record("user", "go " * 30)]
    for i in range(6):
        lines.append(record("assistant", [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}}]))
        lines.append(record("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "w " * 300}]))
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, out, err = streams(
        capsys, path, "--window", "400", "--strategy", "summary only", "--strategy", "none"
    )
    assert status == 0
    flat = " ".join(out.split())
    assert re.search(r"summary only .*refused at turn \d+: .*summary", flat), flat
    assert "over the window from turn" in flat  # the next strategy ran
    assert f"{path}: summary only refused at turn " in err
    assert not re.search(r"[\s(]-\d", err), err  # no negative size anywhere


def test_columns_narrows_the_table_when_the_output_is_not_a_terminal(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "110")
    status = cli.main(["replay", str(session_file(tmp_path / "s.jsonl")), "--window", "4000"])
    table = [line for line in capsys.readouterr().out.splitlines() if set(line) & set("┃│┏└")]
    assert status == 0 and table and max(len(line) for line in table) <= 110


def test_a_cost_too_small_for_four_decimals_is_not_shown_as_nothing():
    assert dollars(0.0) == "$0.0000"  # nothing sent
    assert dollars(0.00002) == "<$0.0001"  # a few tokens: spent, but under the last decimal
    assert dollars(0.00005) == "$0.0001" and dollars(1.23456) == "$1.2346"


def test_every_replay_says_what_became_of_each_record_and_a_thin_read_says_so_on_stderr(capsys, tmp_path):
    """A 2.1.14 session came out as 10 messages of 97 records with exit 0 and nothing said."""
    noise = [
        json.dumps({"type": "progress", "uuid": f"p{i}", "data": {"type": "hook_progress"}}) for i in range(8)
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([record("user", "fix it"), *noise, record("assistant", "done"), "{cut"]) + "\n")
    status, out, err = streams(capsys, path, "--strategy", "none")
    assert status == 0
    counts = f"{path}: 11 records: 2 read as messages, 8 left out (8 progress), 1 skipped (1 not_json)"
    assert counts in " ".join(out.split())
    (thin,) = [line for line in err.splitlines() if "only" in line]
    assert (
        thin
        == f"{path}: only 2 of 11 records were read as messages (8 left out: progress, 1 skipped: not_json)"
    )


def test_help_says_which_exit_status_means_what(capsys):
    with pytest.raises(SystemExit):
        cli.main(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 replayed; 3 replayed, but files or instances were skipped; 2 refused" in out


def test_replay_and_evaluate_session_default_to_one_window_rule_and_say_it_in_their_help(capsys, tmp_path):
    path = session_file(tmp_path / "s.jsonl")
    messages = load(path).messages
    status, out = replay(capsys, path, "--strategy", "none")
    assert status == 0 and f"window {replay_window(messages):,} tokens" in out  # not the 200,000 of a model
    assert compare.recorded_session(path).window == replay_window(messages)
    for command_name in ("replay", "evaluate"):
        with pytest.raises(SystemExit):
            cli.main([command_name, "--help"])
        assert RULE in " ".join(capsys.readouterr().out.split()), f"{command_name} --help"


def test_every_skip_is_named_by_line_even_past_the_first_three(capsys, tmp_path):
    lines = [record("user", "fix the parser"), record("assistant", "looking")]
    lines += ["{not json"] * 6 + [record("user", "go on")]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, out, err = streams(capsys, path, "--strategy", "none")
    assert status == 0 and "not_json x6" in err
    for n in (3, 4, 5):
        assert f"{path}:line {n}: " in err  # the first three with their detail
    assert f"{path}: and 3 more not_json, at lines 6, 7 and 8" in err


def test_the_broken_chain_rule_says_what_its_places_say():
    from compaction.importers import RULES

    assert "stops" not in RULES["broken_chain"] and "file order" in RULES["broken_chain"]
