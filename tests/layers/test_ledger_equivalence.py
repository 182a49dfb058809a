"""The state ledger made with the shortcuts and kept readings equals the one made from scratch.

From scratch means: every command's output read line by line (no ``_may_*`` shortcut, nothing
remembered by ``command_entry``) and the used lines of each output taken from ``used_lines`` over
the messages after it. Histories mix shell commands whose outputs the agent names later, failures
and their fixes; the ledger is made, the list edited as compaction edits it (results cleared, a
summary with its ledger replacing a prefix, messages removed, turns added), and made again: a
reading or an index kept from the first list would show in the second.
"""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.core import outcomes
from compaction.core.messages import text, tool_result, tool_use
from compaction.core.used import LaterUse, pick_used, said_later, specifics
from compaction.layers.ledger import ledger_text

LINES = [
    "src/app.py:3: def top_words(n):", "value = 42", "3 passed, 1 failed", "12 passed",
    "FAILED tests/test_app.py::test_top - AssertionError: 41 != 42", "E   ValueError: bad 'input'",
    "Traceback (most recent call last):", "[exit code 1]", "<returncode>0</returncode>", "ok",
    "config.yaml", "TypeError: top_words() missing 1 argument", "the quick brown fox", "", "x" * 170,
]  # fmt: skip
COMMANDS = [
    "pytest -q", "python -m app", "grep -rn top_words src", "cat src/app.py", "sed -i 's/41/42/' src/app.py",
    "cat > notes.md <<'EOF'\nhello\nEOF", "ls", "git diff",
]  # fmt: skip
SAID = ["I will fix top_words.", "Open app.py.", "The value 42 is right.", "See src/app.py.", "config.yaml"]


@st.composite
def histories(draw):
    messages = [{"role": "user", "content": "Fix the failing test. Do not change the API."}]
    for n in range(draw(st.integers(1, 10))):
        command = draw(st.sampled_from(COMMANDS))
        output = "\n".join(draw(st.lists(st.sampled_from(LINES), max_size=6)))
        said = draw(st.sampled_from(SAID))
        call = tool_use(f"toolu_{n}", "bash", {"command": command})
        messages.append({"role": "assistant", "content": [text(said), call]})
        result = tool_result(f"toolu_{n}", output or "-", is_error=draw(st.booleans()))
        messages.append({"role": "user", "content": [result]})
    return messages


def from_scratch_lines(self, result_text, index, **bounds):
    said = said_later(self._messages[index + 1 :])
    return pick_used(result_text, specifics(result_text) & said, **bounds)


class Forgetful(dict):
    def __setitem__(self, key, value):
        pass


@contextmanager
def from_scratch():
    shortcuts = ("_may_exit", "_may_err", "_may_count", "_may_list", "_may_traceback")
    with (
        mock.patch.multiple(outcomes, **{name: lambda _output: True for name in shortcuts}),
        mock.patch.object(outcomes, "_READINGS", Forgetful()),
        mock.patch.object(LaterUse, "lines", from_scratch_lines),
    ):
        yield


def assert_same_ledger(messages, max_tokens):
    made = ledger_text(messages, max_tokens=max_tokens)
    with from_scratch():
        assert made == ledger_text(messages, max_tokens=max_tokens)


@settings(max_examples=80, deadline=None)
@given(histories(), st.data(), st.sampled_from([150, 400, 10_000]))
def test_the_ledger_equals_the_one_made_from_scratch_across_edits(messages, data, max_tokens):
    assert_same_ledger(messages, max_tokens)
    cut = data.draw(st.integers(1, len(messages) - 1))
    edit = data.draw(st.sampled_from(["clear", "summary", "remove", "turn"]))
    if edit == "clear":  # a result's content replaced (a new dict), as micro does
        edited = [
            {**m, "content": [{**b, "content": "[cleared: run it again]"} for b in m["content"]]}
            if k >= cut and m["role"] == "user" and isinstance(m["content"], list)
            else m
            for k, m in enumerate(messages)
        ]
    elif edit == "summary":  # a summary carrying the first ledger replaces a prefix
        head = {"role": "user", "content": [text("Summary."), text(ledger_text(messages[:cut]))]}
        start = cut if messages[cut]["role"] == "assistant" else cut + 1
        edited = [head, *messages[start:]]
    elif edit == "remove":
        edited = [m for k, m in enumerate(messages) if k < cut - 1 or k > cut]
    else:  # a turn that names an old output's line
        edited = [*messages, {"role": "assistant", "content": [text(data.draw(st.sampled_from(LINES)))]}]
    assert_same_ledger(edited, max_tokens)
