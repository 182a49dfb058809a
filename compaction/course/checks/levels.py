"""Checks for chapters 11 and 12 (compression levels): a grep condenser, files modified, phase ends.

Sample outputs here are generated from a seed (the same text every run) in the four formats the
condensers know: a grep, a pytest run, an application log and a listing, each 500 lines or more.
``fix_session`` is a scripted session on the practice project with real tool outputs. The checks
compare a learner's function with the package's on these and on the course sessions, and add
targeted cases that known-wrong answers fail. Deliberately left out: the signals of
``compaction.levels.signals``, which chapter 12 shows but does not ask the learner to rebuild.
"""

from __future__ import annotations

import importlib.resources
import json
import random
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from compaction.agent.loop import new_workspace, sample_session
from compaction.agent.tools import Workspace
from compaction.core.tokens import count_text
from compaction.course.checks import CheckReport, run_cases
from compaction.levels.checkpoint import files_modified as files_modified_reference
from compaction.levels.condense import condense_grep as condense_grep_reference
from compaction.levels.locations import missing_references
from compaction.levels.phase_summary import summarize_phase
from compaction.levels.phases import detect_phases
from compaction.presentation.language import say

_PACKAGES = ("auth", "billing", "api", "storage", "jobs", "utils")
_WORDS = ("token", "user", "config", "session", "request", "cache", "retry", "limit")


def _files(rng: random.Random, n: int) -> list[str]:
    names = {f"src/{rng.choice(_PACKAGES)}/{rng.choice(_WORDS)}_{rng.choice(_WORDS)}.py" for _ in range(n)}
    return sorted(names)


def sample_grep(lines: int = 2000, *, seed: int = 0, pattern: str = "token") -> str:
    """A ``grep -rn`` output of ``lines`` matches over a made-up project."""
    rng = random.Random(seed)
    files = _files(rng, 40)
    out = []
    for path in files:
        share = max(1, lines // len(files) + rng.randint(-20, 20))
        line = rng.randint(1, 30)
        for _ in range(share):
            line += rng.choice((1, 1, 2, 5, 11))
            code = rng.choice(
                (
                    f"    {pattern} = request.headers.get('{rng.choice(_WORDS)}')",
                    f"    if not validate_{pattern}({pattern}, now=clock()):",
                    f"def refresh_{pattern}(self, {rng.choice(_WORDS)}: str) -> str:",
                    f"        raise ValueError('expired {pattern} for ' + user_id)",
                    f"    log.debug('checked %s {pattern}', {rng.choice(_WORDS)})",
                )
            )
            out.append(f"{path}:{line}:{code}")
    return "\n".join(out[:lines])


def sample_test_run(tests: int = 600, *, seed: int = 0, failures: int = 4) -> str:
    """A ``pytest -v`` output: ``tests`` results, ``failures`` of them failing with a traceback."""
    rng = random.Random(seed)
    names = [f"tests/test_{rng.choice(_WORDS)}.py::test_{rng.choice(_WORDS)}_{i}" for i in range(tests)]
    failed = sorted(rng.sample(range(tests), failures))
    out = ["============================= test session starts ==============================", ""]
    for i, name in enumerate(names):
        out.append(f"{name} {'FAILED' if i in failed else 'PASSED'} [{100 * (i + 1) // tests:3d}%]")
    out += ["", "=================================== FAILURES ==================================="]
    summary = []
    for i in failed:
        path, test = names[i].split("::")
        line = rng.randint(10, 300)
        message = f"AssertionError: expected {rng.choice(_WORDS)} to be refreshed, got None"
        out += [f"_____ {test} _____", "", f"    def {test}():", ">       assert refresh() is not None"]
        out += [f"E       {message}", "", f"{path}:{line}: AssertionError"]
        summary.append(f"FAILED {names[i]} - {message}")
    out += ["=========================== short test summary info ============================", *summary]
    out.append(
        f"======================== {failures} failed, {tests - failures} passed ========================"
    )
    return "\n".join(out)


def sample_log(lines: int = 800, *, seed: int = 0) -> str:
    """An application log: mostly INFO, some WARNING and ERROR lines, one traceback."""
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        stamp = f"2026-11-29 10:{i // 60 % 60:02d}:{i % 60:02d}"
        roll = rng.random()
        if roll < 0.03:
            out.append(f"{stamp} ERROR worker.py:88 job {rng.randint(1, 999)} failed: connection reset")
        elif roll < 0.08:
            out.append(f"{stamp} WARNING cache.py:41 cache miss rate {rng.randint(20, 90)} percent")
        else:
            out.append(f"{stamp} INFO worker.py:57 processed job {rng.randint(1, 999)}")
    out[lines // 2 : lines // 2] = [
        "Traceback (most recent call last):",
        '  File "src/jobs/worker.py", line 88, in run',
        "    result = handler(job)",
        '  File "src/jobs/handlers.py", line 132, in handler',
        "    raise ConnectionResetError('peer closed')",
        "ConnectionResetError: peer closed",
    ]
    return "\n".join(out)


def sample_listing(files: int = 700, *, seed: int = 0) -> str:
    """A ``find . -type f`` output of ``files`` paths."""
    rng = random.Random(seed)
    paths = {"./README.md", "./pyproject.toml", "./run_tests.py"}
    while len(paths) < files:
        ext = rng.choice(("py", "py", "py", "json", "md", "txt"))
        paths.add(
            f"./src/{rng.choice(_PACKAGES)}/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{len(paths)}.{ext}"
        )
    return "\n".join(sorted(paths))


def sample_outputs(seed: int = 0) -> dict[str, tuple[str, str]]:
    """The four large sample outputs: kind -> (command, output)."""
    return {
        "grep": ("grep -rn token src", sample_grep(seed=seed)),
        "test_run": ("pytest -v", sample_test_run(seed=seed)),
        "log": ("cat logs/worker.log", sample_log(seed=seed)),
        "listing": ("find . -type f", sample_listing(seed=seed)),
    }


# one scripted step: (what the agent says, tool name, tool input)
FIX_SCRIPT = [
    ("Let me see the layout of the project first.", "glob", {"pattern": "**/*.py"}),
    ("Now run the tests to see what fails.", "bash", {"command": "python run_tests.py"}),
    ("Three n-gram tests fail; read them.", "read_file", {"path": "tests/test_ngrams.py"}),
    ("And the code they test.", "read_file", {"path": "textstats/ngrams.py"}),
    ("Who else calls ngrams()?", "bash", {"command": "grep -rn 'ngrams(' textstats"}),
    (
        "The range in ngrams() stops one short, so the last n-gram is lost. I will use "
        "len(tokens) - n + 1 because every n-gram test expects the last one.",
        "edit_file",
        {
            "path": "textstats/ngrams.py",
            "old_text": "range(len(tokens) - n)]",
            "new_text": "range(len(tokens) - n + 1)]",
        },
    ),
    ("Check the n-gram tests.", "bash", {"command": "python run_tests.py tests/test_ngrams.py"}),
    ("Next the tie-break in top_words.", "read_file", {"path": "textstats/counts.py"}),
    (
        "top_words sorts by count only, so ties keep their first-seen order. I will sort by "
        "(-count, word) because the docstring promises alphabetical ties.",
        "edit_file",
        {
            "path": "textstats/counts.py",
            "old_text": "key=lambda pair: -pair[1])",
            "new_text": "key=lambda pair: (-pair[1], pair[0]))",
        },
    ),
    ("Now the syllable counter.", "read_file", {"path": "textstats/readability.py"}),
    (
        "count_syllables returns 0 for 'the' after the silent-e rule. I will clamp it to at "
        "least 1 because the docstring says every word has one.",
        "edit_file",
        {
            "path": "textstats/readability.py",
            "old_text": '        count -= 1  # a final silent e, as in "make"\n    return count',
            "new_text": '        count -= 1  # a final silent e, as in "make"\n    return max(count, 1)',
        },
    ),
    ("Run the whole suite again.", "bash", {"command": "python run_tests.py"}),
]


def fix_session(workspace=None) -> list[dict]:
    """A scripted session on the practice project: research, three fixes, the suite turns green."""

    if workspace is None:  # a throwaway copy; tool outputs never show its path
        with tempfile.TemporaryDirectory(prefix="compaction-fix-") as folder:
            return fix_session(Path(folder) / "ws")
    sandbox = Workspace(new_workspace(workspace))
    messages = [{"role": "user", "content": "The tests of this project fail. Find out why and fix the code."}]
    for n, (said, name, args) in enumerate(FIX_SCRIPT, 1):
        use = {"type": "tool_use", "id": f"toolu_fix_{n:02d}", "name": name, "input": args}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": said}, use]})
        messages.append({"role": "user", "content": [sandbox.run(use)]})
    messages.append({"role": "assistant", "content": "All tests pass now."})
    return messages


# ---------------------------------------------------------------- the checks


@lru_cache(maxsize=1)
def _fix_session_json() -> str:
    return json.dumps(fix_session())


def level_sessions() -> list[list[dict]]:
    """The sessions the checks run on: the scripted fix session and the course's sample session."""
    return [json.loads(_fix_session_json()), sample_session()]


def summarized_session() -> list[dict]:
    """The fix session with a summary of its research so far (messages 1-8) written before its first edit."""
    messages = json.loads(_fix_session_json())
    summary = {"role": "assistant", "content": [{"type": "text", "text": summarize_phase(messages, 1, 9)}]}
    note = {"role": "user", "content": [{"type": "text", "text": "[Phase summarized: messages 1-8.]"}]}
    return messages[:9] + [summary, note] + messages[9:]


def first_difference(got: list, want: list) -> str:
    """Where two lists first differ: a wrong entry, a missing one or an extra one, with both lengths."""
    sizes = say("({n} entries, expected {m})", n=len(got), m=len(want))
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return say(
                "entry {i}: got {got}, expected {want} {sizes}", i=i, got=repr(g), want=repr(w), sizes=sizes
            )
    if len(got) < len(want):
        return say("entry {i} missing: {want} {sizes}", i=len(got), want=repr(want[len(got)]), sizes=sizes)
    return say("entry {i} not expected: {got} {sizes}", i=len(want), got=repr(got[len(want)]), sizes=sizes)


def check_condense_grep(condense_grep: Callable[[str], str]) -> CheckReport:
    """A grep condenser: the package's totals line, every path and line kept, 80% fewer tokens."""

    def keeps_everything(seed: int, lines: int) -> Callable[[], None]:
        def case() -> None:
            output = sample_grep(lines, seed=seed)
            got = condense_grep(output)
            assert isinstance(got, str), say("returned {kind}, not a string", kind=type(got).__name__)
            lost = missing_references(output, got)
            assert not lost, say("{n} locations lost, first {first}", n=len(lost), first=lost[:3])

        return case

    def totals() -> None:
        output = sample_grep(seed=3)
        first = condense_grep(output).splitlines()[0]
        want = condense_grep_reference(output).splitlines()[0]
        assert first == want, say("first line {first} is not the totals", first=repr(first))

    def shorter() -> None:
        output = sample_grep()
        before, after = count_text(output, "tiktoken"), count_text(condense_grep(output), "tiktoken")
        assert after <= 0.2 * before, say(
            "{before} tokens became {after}: less than an 80% cut", before=before, after=after
        )

    def one_match() -> None:
        got = condense_grep("src/app.py:7:token = 1")
        assert "src/app.py" in got and "7" in got, say("the one match is gone: {got}", got=repr(got))

    return run_cases(
        "condense_grep",
        [
            ("keeps every path and line of a 2,000-line grep", keeps_everything(0, 2000)),
            ("keeps every path and line of another grep", keeps_everything(1, 700)),
            ("starts with the totals line of the package", totals),
            ("cuts tokens by at least 80%", shorter),
            ("keeps a single match", one_match),
        ],
    )


PHASE_RULES = {
    "first edit after research": "an edit, with nothing edited yet and two or more reads, searches or "
    "test runs before it in the phase, ends the phase at the edit's index",
    "moved on to": "an edit of a file the phase has not edited, once it edited others, ends the phase at "
    "the first look since its last edit (at the edit when there is none)",
    "tests turned green": "a green test run, after an edit or after the same command was red, ends the "
    "phase two messages after the run",
}


def _rule_of(reason: object) -> str:
    text = str(reason)
    key = next((k for k in PHASE_RULES if text.startswith(k)), None)
    if key is None:
        return say("{reason} is none of the three rules' reasons", reason=repr(text))
    return say("the rule: {rule}", rule=say(PHASE_RULES[key]))


def phase_difference(got: list, want: list, messages: list) -> str:
    """The first end that differs, with the message it falls on and the rule that gives (or denies) it."""
    sizes = say("({n} ends, expected {m})", n=len(got), m=len(want))
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return say(
                "end {i}: got {got}, expected {want}: phase ending at message {at} of {n}; {rule} {sizes}",
                i=i,
                got=repr(g),
                want=repr(w),
                at=w[0],
                n=len(messages),
                rule=_rule_of(w[1]),
                sizes=sizes,
            )
    if len(got) < len(want):
        w = want[len(got)]
        return say(
            "end {i} missing: {want}, a phase ending at message {at}; {rule} {sizes}",
            i=len(got),
            want=repr(w),
            at=w[0],
            rule=_rule_of(w[1]),
            sizes=sizes,
        )
    g = got[len(want)]
    return say(
        "end {i} not expected: {got}; no rule ends a phase there "
        "(a summary ends one without recording it, the last phase stays open) {sizes}",
        i=len(want),
        got=repr(g),
        sizes=sizes,
    )


def check_phase_ends(phase_ends: Callable[[list], list]) -> CheckReport:
    """Where finished phases end: identical to the package's on every session of the course."""

    def reference(messages: list) -> list[tuple[int, str]]:
        return [(p.end, p.reason) for p in detect_phases(messages) if p.reason != "open"]

    def same_on(k: int) -> Callable[[], None]:
        def case() -> None:
            sessions = level_sessions()
            if k >= len(sessions):
                return
            got, want = phase_ends(sessions[k]), reference(sessions[k])
            assert list(got) == want, phase_difference(list(got), want, sessions[k])

        return case

    def after_a_summary() -> None:
        messages = summarized_session()
        got, want = phase_ends(messages), reference(messages)
        assert list(got) == want, say("a phase summary ends the phase; ") + phase_difference(
            list(got), want, messages
        )

    def research_then_edit() -> None:
        messages = _tiny([("read_file", {"path": "a.py"}), ("bash", {"command": "grep -rn x ."}), _EDIT_A])
        got = list(phase_ends(messages))
        assert got == [(5, "first edit after research")], say("read, search, edit: ") + phase_difference(
            got, [(5, "first edit after research")], messages
        )

    def only_reads() -> None:
        messages = _tiny([("read_file", {"path": f"m{k}.py"}) for k in range(5)])
        got = list(phase_ends(messages))
        assert got == [], say("five reads and no edit: the phase is still open, nothing is finished; ") + (
            phase_difference(got, [], messages)
        )

    return run_cases(
        "phase_ends",
        [
            ("identical on the scripted fix session", same_on(0)),
            ("identical on the course's sample session", same_on(1)),
            ("identical on a session with a phase summary in it", after_a_summary),
            ("the first edit after two reads ends research", research_then_edit),
            ("a session that only reads has nothing finished", only_reads),
        ],
    )


_EDIT_A = ("edit_file", {"path": "a.py", "old_text": "x = 1", "new_text": "x = 2"})


def _tiny(calls: list[tuple[str, dict]], results: dict[int, str] | None = None) -> list[dict]:
    """A session with one tool call per turn; results default to a numbered line of the file."""
    messages = [{"role": "user", "content": "Fix it."}]
    for k, (name, args) in enumerate(calls):
        use = {"type": "tool_use", "id": f"toolu_t{k}", "name": name, "input": args}
        out = (results or {}).get(k, "     1\tx = 1")
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Step {k}."}, use]})
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": out}]}
        )
    return messages


def check_files_modified(files_modified: Callable[[list], list]) -> CheckReport:
    """The Files Modified section: identical to the package's on every session of the course."""

    def same_on(k: int) -> Callable[[], None]:
        def case() -> None:
            sessions = level_sessions()
            if k >= len(sessions):
                return
            got, want = files_modified(sessions[k]), files_modified_reference(sessions[k])
            assert list(got) == want, say("got {got}, expected {want}", got=list(got), want=want)

        return case

    def every_file() -> None:
        edit_b = ("edit_file", {"path": "b.py", "old_text": "x = 1", "new_text": "x = 3"})
        messages = _tiny([("read_file", {"path": "a.py"}), _EDIT_A, ("read_file", {"path": "b.py"}), edit_b])
        got = list(files_modified(messages))
        assert got == ["a.py (line 1)", "b.py (line 1)"], say("got {got}", got=got)

    def written() -> None:
        messages = _tiny([("write_file", {"path": "notes.md", "content": "# Notes"})], {0: "wrote 1 lines"})
        assert list(files_modified(messages)) == ["notes.md (written)"], files_modified(messages)

    def opened_last() -> None:
        messages = _tiny([("read_file", {"path": "a.py"}), ("edit", {"search": "y = 0", "replace": "y = 1"})])
        got = list(files_modified(messages))
        assert got == ["a.py (edited)"], say(
            "an edit that names no file changes the one read last; got {got}", got=got
        )

    return run_cases(
        "files_modified",
        [
            ("identical on the scripted fix session", same_on(0)),
            ("identical on the course's sample session", same_on(1)),
            ("lists every edited file with its line", every_file),
            ("lists a file created with write_file", written),
            ("an edit without a path changes the file read last", opened_last),
        ],
    )


def project_line(path: str, text: str) -> int:
    """The 1-based number of the first line of the bundled practice project's ``path`` holding ``text``."""

    source = importlib.resources.files("compaction") / "offline" / "project" / path
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return number
    raise ValueError(f"{text!r} is not in the practice project's {path}")
