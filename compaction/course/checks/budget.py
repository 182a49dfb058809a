"""Checks for chapter 03 (the store and the budget): the layer, a marker with head and tail, max_chars.

``check_budget`` runs the chapter's function: differential against the package's
``tool_result_budget`` on lists that end with large results (one huge read, several outputs at once,
results of the course's sessions scaled up), for a grid of ``max_chars``, with a fresh store each
time; the boundaries are a total exactly at ``max_chars`` and a result no larger than its marker.
It also proves that the input is untouched and that every persisted output is on disk byte for byte.
The exercises are checked by properties, so any correct wording passes: ``marker_with_tail`` must
keep the package's marker frame (so the layers recognise it) at any ``preview_chars`` (3 and 1
among them), show both ends of the output and, between them, one line with the number of characters
left out, and never call that preview "the first N characters";
``max_chars_for`` must give the largest size that fits what is left of the window.
Deliberately left out: failed writes and hostile ids, which the chapter shows with the package.
"""

from __future__ import annotations

import copy
import math
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction.core.messages import (
    assistant,
    is_tool_result_message,
    result_chars,
    text_of,
    tool_result,
    tool_use,
    user,
)
from compaction.core.placeholders import MARKER_OVERHEAD, is_persisted_marker
from compaction.core.store import OutputStore
from compaction.course.checks import CheckReport, assert_same_messages, run_cases
from compaction.course.checks.messages import assert_unchanged, course_sessions
from compaction.layers.budget import tool_result_budget
from compaction.presentation.language import say

PREVIEW = 2_000


def nightly_log(lines: int = 1_336) -> str:
    """A job log whose error comes at the very end, after ``lines`` routine lines (chapter 03's log)."""
    out = [
        f"2026-03-01 02:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{i % 7} exported batch {i} (412 rows)"
        for i in range(lines)
    ]
    out.append(f"2026-03-01 02:22:17 ERROR worker-0 batch {lines + 1}: disk quota exceeded on /data/exports")
    out.append("2026-03-01 02:22:17 INFO job aborted after 1 error; 0 batches retried")
    return "\n".join(out)


def big_turns() -> list[tuple[str, list[dict]]]:
    """(name, list ending with large results): one huge log, several outputs at once, scaled-up sessions."""
    log = nightly_log()
    one = [
        user("The nightly export failed. Find out why; the log is logs/nightly.log."),
        assistant("Reading the log.", tool_use("toolu_log", "bash", {"command": "cat logs/nightly.log"})),
        user(tool_result("toolu_log", log)),
    ]
    sizes = [40_000, 2_300, 9_000, 9_000, 2_500, 900]
    calls = [tool_use(f"toolu_p{k}", "read_file", {"path": f"src/m{k}.py"}) for k in range(len(sizes))]
    several = [
        user("Read the modules."),
        assistant(*calls),
        user(
            *(
                tool_result(f"toolu_p{k}", ("x" * 79 + "\n") * (n // 80) + "y" * (n % 80))
                for k, n in enumerate(sizes)
            )
        ),
    ]
    turns = [("one huge log", one), ("six outputs at once", several)]
    for k, session in enumerate(course_sessions(), start=1):
        ends = [i for i, m in enumerate(session) if is_tool_result_message(m)][::4]
        for i in ends:  # results scaled up twentyfold, so that budgets bite
            scaled = copy.deepcopy(session[: i + 1])
            for block in scaled[-1]["content"]:
                if block.get("type") == "tool_result":
                    block["content"] = text_of(block["content"]) * 20
            turns.append((f"session {k} to message {i}, results x20", scaled))
    return turns


def _run(fn: Callable, messages: list[dict], max_chars: int, root: Path) -> tuple[list[dict], Path]:
    store = OutputStore(root / ".task_outputs", base=root)
    return fn(messages, max_chars, store), root


def _no_larger_marker(got: object, messages: list[dict], where: str) -> None:
    """Every marker in the newest message is smaller than the result it replaced."""
    last = got[-1] if isinstance(got, list) and got and isinstance(got[-1], dict) else {}
    before = {b.get("tool_use_id"): b for b in messages[-1]["content"] if isinstance(b, dict)}
    for j, block in enumerate(last.get("content") if isinstance(last.get("content"), list) else []):
        original = before.get(block.get("tool_use_id")) if isinstance(block, dict) else None
        if original is None or not is_persisted_marker(block.get("content")):
            continue
        size, marker = result_chars(original), result_chars(block)
        if is_persisted_marker(original.get("content")) or size > PREVIEW + MARKER_OVERHEAD:
            continue
        at = say(
            "{where}: message {i}, block {j} ({use_id}): a result of {size} chars",
            where=where,
            i=len(got) - 1,
            j=j,
            use_id=block["tool_use_id"],
            size=f"{size:,}",
        )
        raise AssertionError(
            say(
                "{at} became a marker of {marker}: the marker would be larger than the result: keep it",
                at=at,
                marker=f"{marker:,}",
            )
            if marker >= size
            else say(
                "{at} went to disk, but its marker can take up to {most} (a {preview}-character preview "
                "and its frame): the marker would be no smaller: keep it",
                at=at,
                most=f"{PREVIEW + MARKER_OVERHEAD:,}",
                preview=f"{PREVIEW:,}",
            )
        )


def _same_as_package(
    fn: Callable, name: str, messages: list[dict], max_chars: int, marker_first: bool = False
) -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        given = copy.deepcopy(messages)
        got, root = _run(fn, given, max_chars, Path(a))
        want = tool_result_budget(
            messages, max_chars=max_chars, store=OutputStore(Path(b) / ".task_outputs", base=Path(b))
        )
        where = f"{name}, max_chars={max_chars:,}"
        if marker_first:  # the row about this rule names it even when the input was changed too
            _no_larger_marker(got, messages, where)
        assert_unchanged(given, messages, where, say("build new messages instead"))
        _no_larger_marker(got, messages, where)
        assert_same_messages(got, want, where)
        for block in got[-1]["content"] if isinstance(got[-1]["content"], list) else []:
            content = block.get("content")
            if block.get("type") == "tool_result" and is_persisted_marker(content):
                original = next(
                    r for r in messages[-1]["content"] if r.get("tool_use_id") == block["tool_use_id"]
                )
                path = text_of(content).split("saved to: ", 1)[1].split("\n", 1)[0]
                saved = (root / path).read_text(encoding="utf-8") if (root / path).exists() else None
                assert saved == text_of(original["content"]), say(
                    "{where}: {use_id}'s output is not on disk byte for byte at {path}",
                    where=where,
                    use_id=block["tool_use_id"],
                    path=path,
                )


def check_budget(budget: Callable) -> CheckReport:
    """Chapter 03: the newest results persisted largest first until the rest fits, like the package."""
    cases = []
    for name, messages in big_turns():
        total = sum(result_chars(b) for b in messages[-1]["content"] if b.get("type") == "tool_result")
        grid = sorted({0, 8_000, 20_000, total // 2, total})  # total itself: exactly at the budget
        cases.append(
            (
                f"{name}: {total:,} chars of results",
                lambda n=name, m=messages, g=grid: [_same_as_package(budget, n, m, c) for c in g],
            )
        )
    small = [
        user("List."),
        assistant(tool_use("toolu_s", "glob", {"pattern": "*"})),
        user(tool_result("toolu_s", "z" * (PREVIEW + MARKER_OVERHEAD))),
    ]
    cases.append(
        (
            "a result no larger than its marker stays",
            lambda: _same_as_package(budget, "marker-sized", small, 0, marker_first=True),
        )
    )
    cases.append(("a single message", lambda: _same_as_package(budget, "single", [user("hi")], 0)))
    return run_cases("budget", cases)


# ---------------------------------------------------------------- exercise 1: head and tail


def _marker(
    fn: Callable,
    output: str,
    what: str,
    path: str = ".task_outputs/tool-results/x.txt",
    preview_chars: int = PREVIEW,
) -> str:
    marker = (
        fn(path, len(output), output)
        if preview_chars == PREVIEW
        else fn(path, len(output), output, preview_chars=preview_chars)
    )
    assert isinstance(marker, str), say(
        "{what}: return a string, got {kind}", what=what, kind=type(marker).__name__
    )
    if len(marker) > preview_chars + MARKER_OVERHEAD and output in marker and len(output) > preview_chars:
        raise AssertionError(
            say(
                "{what}: the whole output ({n} characters) is in the marker; with preview_chars={preview} "
                "half is {half}, and output[-{half}:] is the whole output, not its last {half} characters "
                "(output[len(output) - half:] is)",
                what=what,
                n=f"{len(output):,}",
                preview=preview_chars,
                half=preview_chars // 2,
            )
        )
    assert is_persisted_marker(marker, preview_chars), say(
        "{what}: the layers would not recognise this marker: it must start with <persisted-output>, end "
        "with </persisted-output> and be at most {most} characters (it is {n})",
        what=what,
        most=f"{preview_chars + MARKER_OVERHEAD:,}",
        n=f"{len(marker):,}",
    )
    assert path in marker, say("{what}: name the path {path} in the marker", what=what, path=repr(path))
    size = f"{len(output):,}"
    assert size in marker, (
        say(
            "{what}: the size must appear as {size} (with thousands separators, as f'{{n:,}}' writes it)",
            what=what,
            size=size,
        )
        if len(output) >= 1_000
        else say("{what}: the size must appear as {size}", what=what, size=size)
    )
    return marker


def _frame_tells_the_truth(marker: str, head: str, tail: str, half: int, what: str) -> None:
    """Outside the preview, the marker never calls a head-and-tail preview "the first N characters"."""
    start, end = marker.index(head), marker.rindex(tail) + len(tail)
    frame = marker[:start] + marker[end:]
    for claim in re.findall(r"first\s+([\d,]+)\s+char", frame):
        if claim != f"{half:,}" or not re.search(r"\blast\b", frame):
            raise AssertionError(
                say(
                    "{what}: the marker says its preview is the first {claim} characters, but it shows the "
                    "first and the last {half}: say what the preview holds (persisted_marker's label "
                    "describes a preview of the head only)",
                    what=what,
                    claim=claim,
                    half=f"{half:,}",
                )
            )


def _both_ends(fn: Callable) -> None:
    log = nightly_log()
    marker = _marker(fn, log, "the nightly log")
    head, tail = log[: PREVIEW // 2], log[-PREVIEW // 2 :]
    assert head in marker, say("the nightly log: the first 1,000 characters are not in the preview")
    assert tail in marker, say(
        "the nightly log: the last 1,000 characters (the error) are not in the preview"
    )
    assert "disk quota exceeded" in marker, say("the nightly log: the error line at the end is not shown")
    _left_out_between(marker, head, tail, len(log) - 2 * (PREVIEW // 2), "the nightly log")
    _frame_tells_the_truth(marker, head, tail, PREVIEW // 2, "the nightly log")


def _left_out_between(marker: str, head: str, tail: str, left: int, what: str) -> None:
    """Between the head and the tail, a line that says how many characters were left out."""
    match = re.search(re.escape(head) + r"\n*([^\n]*)\n*" + re.escape(tail), marker)
    between = match.group(1) if match else marker[marker.find(head) + len(head) : marker.rfind(tail)]
    count = f"{left:,}"
    assert match and re.search(rf"(?<![\d,]){re.escape(count)}(?![\d,])", between), say(
        "{what}: between the first and the last {half} characters, one line must say how many "
        "characters were left out ({count}); found {found}",
        what=what,
        half=f"{len(head):,}",
        count=count,
        found=repr(between.strip(chr(10))[:80]),
    )


path_of_short = ".task_outputs/tool-results/short.txt"


def _short_whole(fn: Callable) -> None:
    output = "line one\nline two\n" * 50  # 900 characters: shorter than a preview
    marker = _marker(fn, output, "a short output", path_of_short)
    assert output in marker, say("a short output: an output shorter than the preview is shown whole")
    assert marker.count(output) == 1, say("a short output: shown twice; show it once, with nothing left out")
    assert not re.search(r"-\d", marker.replace(path_of_short, "")), say(
        "a short output: a negative count appears; when nothing is left out, say nothing about it"
    )


def _exact_preview(fn: Callable) -> None:
    output = "a" * 999 + "b" * 1_001  # exactly PREVIEW characters: nothing to omit
    marker = _marker(fn, output, "an output exactly 2,000 characters long")
    assert output in marker, say("an output of exactly 2,000 characters is shown whole (<=, not <)")


def _one_more(fn: Callable) -> None:
    output = "h" * 1_000 + "M" + "t" * 1_000  # 2,001: one character must go, and it is the middle one
    marker = _marker(fn, output, "an output of 2,001 characters")
    assert "h" * 1_000 in marker and "t" * 1_000 in marker, say("2,001 characters: both 1,000-character ends")
    middle = "h" * 1_000 + "M" in marker or "M" + "t" * 1_000 in marker
    assert not middle, say("2,001 characters: the middle character is omitted")
    _left_out_between(marker, "h" * 1_000, "t" * 1_000, 1, "2,001 characters")


def _small_previews(fn: Callable) -> None:
    """preview_chars=3 keeps one character of each end; preview_chars=1 keeps none, and stays small."""
    output = "^" + "m" * 4_998 + "$"
    marker = _marker(fn, output, "preview_chars=3", preview_chars=3)
    _left_out_between(marker, "^", "$", 4_998, "preview_chars=3")
    log = nightly_log()
    marker = _marker(fn, log, "preview_chars=1, the nightly log", preview_chars=1)
    assert log[:1_000] not in marker and log[-1_000:] not in marker, say(
        "preview_chars=1, the nightly log: half is 0, so the preview shows nothing of either end"
    )


def check_marker_with_tail(marker_with_tail: Callable) -> CheckReport:
    """Exercise 1: a persisted-output marker whose preview shows the head and the tail of the output."""
    return run_cases(
        "marker_with_tail",
        [
            ("the log's error at the end is shown", lambda: _both_ends(marker_with_tail)),
            ("a short output is shown whole", lambda: _short_whole(marker_with_tail)),
            ("exactly the preview size: whole", lambda: _exact_preview(marker_with_tail)),
            ("one character over: the middle goes", lambda: _one_more(marker_with_tail)),
            ("small previews: 3 and 1 characters", lambda: _small_previews(marker_with_tail)),
        ],
    )


# ---------------------------------------------------------------- exercise 2: max_chars from the window


def max_chars_for_reference(window: int, in_use: int, reserve_output: int, chars_per_token: float) -> int:
    """The characters that fit in what is left of the window: floor(room * chars_per_token), at least 0."""
    room = window - in_use - reserve_output
    return max(0, math.floor(room * chars_per_token))


def _max_chars(fn: Callable, window: int, in_use: int, reserve: int, cpt: float) -> None:
    got = fn(window, in_use, reserve, cpt)
    want = max_chars_for_reference(window, in_use, reserve, cpt)
    where = f"window={window:,}, in_use={in_use:,}, reserve_output={reserve:,}, chars_per_token={cpt}"
    assert isinstance(got, int), say(
        "{where}: return an int, got {kind} {got}", where=where, kind=type(got).__name__, got=repr(got)
    )
    assert got == want, say(
        "{where}: expected {want}, got {got}", where=where, want=f"{want:,}", got=f"{got:,}"
    )


def check_max_chars_for(max_chars_for: Callable) -> CheckReport:
    """Exercise 2: the largest newest-message size, in characters, that still fits the window."""
    fn = max_chars_for
    return run_cases(
        "max_chars_for",
        [
            ("Claude Code's window", lambda: _max_chars(fn, 200_000, 120_000, 20_000, 3.3)),
            ("chapter 03's window", lambda: _max_chars(fn, 8_000, 2_500, 1_000, 3.3)),
            ("a whole number of characters", lambda: _max_chars(fn, 8_000, 2_503, 1_000, 3.7)),
            ("exactly full: 0", lambda: _max_chars(fn, 8_000, 7_000, 1_000, 3.3)),
            ("over the window: 0, not negative", lambda: _max_chars(fn, 8_000, 7_900, 1_000, 3.3)),
        ],
    )
