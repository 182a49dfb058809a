"""An exercise gets its checks through ``for_exercise``: the references its answers must match stay out."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from compaction.course.checks import for_exercise

SOLUTIONS = sorted((Path(__file__).resolve().parents[2] / "solutions").glob("*.ipynb"))
TOPICS = ("messages", "tokens", "budget", "snip", "micro", "pipeline", "summarize", "restore", "breaker")
TOPICS += ("reactive", "condense", "levels", "evaluate", "api_context", "replay", "on_demand", "memory")


def code_of(path: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")


@pytest.mark.parametrize("topic", TOPICS)
def test_no_reference_and_no_answer_is_handed_to_an_exercise(topic):
    shown = vars(for_exercise(topic))
    assert [n for n in shown if n.startswith("check_")], f"{topic}: no check functions shown"
    leaked = [n for n in shown if n.endswith("_reference") or n in {"measured_breaks", "opened_at"}]
    assert not leaked, f"{topic}: {leaked}"


def test_the_answers_a_topic_names_are_hidden():
    assert not hasattr(for_exercise("micro"), "measured_breaks")
    assert not hasattr(for_exercise("pipeline"), "reserve_from_answers")
    assert not hasattr(for_exercise("reactive"), "tail_within")
    assert not hasattr(for_exercise("on_demand"), "missed_by_layer")
    assert hasattr(for_exercise("budget"), "nightly_log") and hasattr(for_exercise("pipeline"), "READ")


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_a_solution_imports_no_check_module_and_uses_only_what_it_is_shown(path):
    code = code_of(path)
    assert not re.search(r"from compaction\.course\.checks import (?!for_exercise\b)\w+", code), path.name
    assert "compaction.course.checks." not in code, path.name
    for name, topic in re.findall(r'(\w+) = for_exercise\("(\w+)"\)', code):
        shown = vars(for_exercise(topic))
        used = set(re.findall(rf"\b{name}\.(\w+)", code))
        missing = sorted(used - set(shown))
        assert not missing, f"{path.name}: {missing} are not in for_exercise({topic!r})"
