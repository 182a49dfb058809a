"""compaction.layers.ledger: files, commands, errors and instructions from the history, bounded."""

from __future__ import annotations

import pytest
from fake_summarizer import FakeClient

from compaction.core.actions import changes
from compaction.core.messages import text, tool_result, tool_use
from compaction.core.tokens import count_text
from compaction.layers.ledger import (
    LEDGER_HEAD,
    ResultMemory,
    command_entry,
    is_ledger,
    ledger_entries,
    ledger_text,
)
from compaction.layers.micro import Micro, micro_compact
from compaction.layers.reactive import Reactive
from compaction.layers.summarize import Summary, compact_history, default_ledger_tokens
from compaction.pipeline.compactor import Compactor

FAILING_RUN = """tests/test_calc.py .F

FAILED tests/test_calc.py::test_add
  File "tests/test_calc.py", line 4, in test_add
    assert add(2, 2) == 4
AssertionError: 5

1 passed, 1 failed

[exit code 1]"""
PASSING_RUN = "tests/test_calc.py ..\n\n2 passed, 0 failed\n"


def history():
    """The user asks; the agent creates calc.py, runs the tests (one fails), fixes calc.py, reruns them."""
    calls = [
        (
            "write_file",
            {"path": "calc.py", "content": "def add(a, b):\n    return a + b + 1\n"},
            "wrote calc.py",
            False,
        ),
        ("bash", {"command": "python run_tests.py"}, FAILING_RUN, True),
        (
            "edit_file",
            {"path": "calc.py", "old_text": "a + b + 1", "new_text": "a + b"},
            "edited calc.py",
            False,
        ),
        ("bash", {"command": "python run_tests.py"}, PASSING_RUN, False),
    ]
    messages = [{"role": "user", "content": "Write calc.py with add(a, b). Never touch the tests."}]
    for k, (name, args, output, is_error) in enumerate(calls):
        messages.append(
            {"role": "assistant", "content": [text(f"Step {k}."), tool_use(f"toolu_{k}", name, args)]}
        )
        messages.append({"role": "user", "content": [tool_result(f"toolu_{k}", output, is_error=is_error)]})
    return messages


def section(ledger, name):
    lines = ledger.splitlines()
    start = lines.index(f"{name}:") + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("- "):
            break
        out.append(line)
    return out


def test_every_section_is_filled_from_the_history():
    ledger = ledger_text(history())
    assert ledger.startswith(LEDGER_HEAD)
    assert section(ledger, "User instructions") == ["- Never touch the tests."]
    files = section(ledger, "Files")
    assert "- calc.py: created (2 lines), starting `def add(a, b):`" in files
    assert "- calc.py: edited: + `a + b`" in files
    commands = section(ledger, "Commands")
    assert commands == [
        "- `python run_tests.py` -> exit 1; 1 passed, 1 failed; "
        "tests/test_calc.py::test_add: AssertionError: 5",
        "- `python run_tests.py` -> 2 passed, 0 failed",
    ]
    assert section(ledger, "Errors") == [
        "- `python run_tests.py` failed (1 passed, 1 failed): "
        "tests/test_calc.py::test_add: AssertionError: 5; edited calc.py; "
        "then `python run_tests.py` passed (2 passed, 0 failed)"
    ]


def test_the_size_is_bounded_and_reported():
    messages = history()
    for k in range(40):  # many commands with an output each
        messages.append(
            {
                "role": "assistant",
                "content": [tool_use(f"toolu_x{k}", "bash", {"command": f"wc -l f{k}.txt"})],
            }
        )
        messages.append({"role": "user", "content": [tool_result(f"toolu_x{k}", f"{k * 7} f{k}.txt")]})
    ledger = ledger_text(messages, max_tokens=300)
    assert count_text(ledger, "tiktoken") <= 300
    head = ledger.splitlines()[0]
    assert "older entries left out to stay under 300" in head
    assert section(ledger, "Errors")  # the highest priorities stay
    assert "- `wc -l f39.txt` -> 273 f39.txt" in ledger  # the newest command outranks the oldest
    assert "- `wc -l f0.txt`" not in ledger


def test_a_ledger_in_the_history_is_carried_over():
    first = ledger_text(history())
    later = [
        {"role": "user", "content": [text("[Compacted ...] summary"), text(first)]},
        {"role": "assistant", "content": [tool_use("toolu_z", "read_file", {"path": "notes.md"})]},
        {"role": "user", "content": [tool_result("toolu_z", "notes")]},
    ]
    second = ledger_text(later)
    assert "- calc.py: created (2 lines), starting `def add(a, b):`" in second
    assert "- files read: notes.md" in second


def test_instructions_the_summary_quotes_with_their_whole_message_are_not_repeated():
    whole = "1. Primary Request:\nWrite calc.py with add(a, b).  Never touch   the tests.\n2. ..."
    assert "User instructions:" not in ledger_text(history(), shown=whole)


def test_an_instruction_whose_message_the_summary_cut_stays_in_the_ledger():
    """A summary that quotes part of a long request may cut that part next time: the ledger carries it."""
    assert "- Never touch the tests." in ledger_text(history(), shown="... Never touch the tests. ...")


@pytest.mark.parametrize(
    ("output", "is_error", "expected"),
    [
        ("3 passed, 0 failed", False, "- `t` -> 3 passed, 0 failed"),
        ("oops: no such file\n[exit code 2]", True, "- `t` -> exit 2; oops: no such file"),
        ("ValueError: bad\n", True, "- `t` -> exit 1; ValueError: bad"),
        ("one line", False, "- `t` -> one line"),
        ("", False, "- `t` -> ok"),
        (
            "FAILED a.py::t - AssertionError: x\n1 failed",
            False,
            "- `t` -> 1 failed; a.py::t: AssertionError: x",
        ),
    ],
)
def test_a_command_entry_says_its_outcome(output, is_error, expected):
    assert command_entry("t", output, is_error)[0] == expected


def test_an_edit_shows_its_changed_lines_whole():
    assert changes("edit_file", {"old_text": "a\nb\n", "new_text": "a\nc\nd\n"}) == [
        "edited: + `c`",
        "edited: + `d`",
    ]
    assert changes("edit_file", {"old_text": "a\nb\n", "new_text": "a\n"}) == ["edited: - `b`"]
    assert changes("read_file", {"path": "x"}) == ["read"]


def test_entries_keep_the_order_of_the_history():
    sections = [e.section for e in ledger_entries(history())]
    assert sections.index("Files") < sections.index("Commands")


def test_compact_history_attaches_the_ledger_to_any_summary(tmp_path):
    client = FakeClient("<summary>Work went on.</summary>")  # a summary that keeps nothing specific
    out = compact_history(history(), client=client, transcript_dir=tmp_path, ledger_tokens=500)
    texts = [b["text"] for b in out[0]["content"] if b["type"] == "text"]
    assert "Work went on." in texts[0]
    assert texts[1].startswith(LEDGER_HEAD)
    assert "tests/test_calc.py::test_add: AssertionError: 5" in texts[1]
    plain = compact_history(history(), client=client, transcript_dir=tmp_path)
    assert not any(b.get("text", "").startswith(LEDGER_HEAD) for b in plain[0]["content"])


def test_result_memory_puts_back_what_micro_cleared():
    messages = history()
    memory = ResultMemory()
    memory.see(messages)
    cleared = micro_compact(messages, keep_recent=0, min_chars=10)
    assert "AssertionError: 5" not in str(cleared)
    assert memory.restore(cleared) == messages
    assert "tests/test_calc.py::test_add: AssertionError: 5" in ledger_text(memory.restore(cleared))


def pipeline(tmp_path, *layers):
    """A Compactor whose every layer fires on the first call (threshold 1, micro clears all)."""
    client = FakeClient("<summary>Work went on.</summary>")
    return Compactor(list(layers), client=client, transcript_dir=tmp_path, context_window=8_000, threshold=1)


def ledgers(messages):
    return [b["text"] for m in messages for b in m["content"] if is_ledger(b.get("text"))]


def test_the_pipelines_summary_carries_the_ledger_of_what_micro_cleared_before_it(tmp_path):
    micro = Micro(keep_recent=0, min_chars=10, trigger=0.0, clear_at_least=0)
    compactor = pipeline(tmp_path, micro, Summary())
    steps = dict(compactor.passes(history()))
    assert "AssertionError: 5" not in str(steps["micro"])  # cleared before the summary ran
    (ledger,) = ledgers(steps["summary"])
    assert "tests/test_calc.py::test_add: AssertionError: 5" in ledger  # put back by ResultMemory
    assert count_text(ledger, "tiktoken") <= default_ledger_tokens(8_000) == 1_200


def test_summary_ledger_tokens_zero_turns_the_ledger_off_and_a_bad_value_is_named():
    with pytest.raises(ValueError, match="ledger_tokens"):
        Summary(ledger_tokens=-1)
    with pytest.raises(ValueError, match="ledger_tokens"):
        Reactive(ledger_tokens=1.5)


def test_summary_without_a_ledger_attaches_none(tmp_path):
    out = pipeline(tmp_path, Summary(ledger_tokens=0)).prepare(history())
    assert len(out) == 1 and not ledgers(out)
    assert ledgers(pipeline(tmp_path, Summary(ledger_tokens=300)).prepare(history()))


def test_micro_keep_used_reaches_micro_compact():
    layer = Micro(keep_recent=0, min_chars=10, keep_used=2)
    assert layer.apply(history(), None) == micro_compact(history(), keep_recent=0, min_chars=10, keep_used=2)
    with pytest.raises(ValueError, match="keep_used"):
        Micro(keep_used=-1)


MINI = "<returncode>{code}</returncode>\n<output>\n{text}\n</output>"
REPRO = "cat > repro.py << 'EOF'\nfrom calc import add\nprint(add(2, 2))\nEOF"
TRACE = 'Traceback (most recent call last):\n  File "calc.py", line 2\nTypeError: boom'


def bash_only_history():
    """A mini-swe-agent-style session: every step one bash call, the outputs wrapped in tags."""
    calls = [
        (REPRO, MINI.format(code=0, text="")),
        ("python repro.py", MINI.format(code=1, text=TRACE)),
        ("sed -i 's/a + b + 1/a + b/' calc.py", MINI.format(code=0, text="")),
        ("python repro.py", MINI.format(code=0, text="4")),
        ("git diff calc.py > patch.txt", MINI.format(code=0, text="")),
    ]  # fmt: skip
    messages = [{"role": "user", "content": "Fix add in calc.py. Do NOT commit your changes."}]
    for k, (command, output) in enumerate(calls):
        messages.append({"role": "assistant", "content": [tool_use(f"t{k}", "bash", {"command": command})]})
        messages.append({"role": "user", "content": [tool_result(f"t{k}", output)]})
    return messages


def test_a_bash_only_session_fills_files_commands_and_errors():
    ledger = ledger_text(bash_only_history())
    assert "- repro.py: created (2 lines), starting `from calc import add`" in ledger
    assert "- calc.py: edited: sed `s/a + b + 1/a + b/`" in ledger
    assert "- patch.txt: written by `git diff calc.py`" in ledger
    assert (
        "- `python repro.py` failed: TypeError: boom; edited calc.py; then `python repro.py` passed" in ledger
    )
    assert "- `python repro.py` -> 4" in ledger  # the wrapping tags are gone
    assert "<returncode>" not in ledger and "exit 0" not in ledger
    assert "- Do NOT commit your changes." in ledger


def test_a_file_written_again_is_listed_once_as_it_was_last_written():
    history = bash_only_history()
    again = "cat > repro.py << 'EOF'\nfrom calc import add, sub\nEOF"
    history += [
        {"role": "assistant", "content": [tool_use("t9", "bash", {"command": again})]},
        {"role": "user", "content": [tool_result("t9", MINI.format(code=0, text=""))]},
    ]
    files = [line for line in ledger_text(history).splitlines() if line.startswith("- repro.py:")]
    assert files == ["- repro.py: created (1 lines), starting `from calc import add, sub`"]
