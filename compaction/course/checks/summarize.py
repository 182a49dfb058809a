"""Checks for chapter 07 (the transcript and the summary): the summary layer, the analysis, the answer.

``check_summary_layer`` runs the summary layer a learner builds in the chapter on the course
sessions against the offline model, watching the calls: the transcript must be on disk before the
summary is asked for, the request must keep the strict form with the prompt last, and the result
must be one valid user message holding the summary (not the analysis) and naming the transcript.
``check_with_summary_prompt``, ``check_strip_analysis`` and ``check_summary_from_blocks`` compare a
learner's piece with the package's on the course sessions and on targeted answers (two analyses,
an unclosed one, an answer that calls a tool). Deliberately left out: fitting an over-long summary
request and file restoration (chapter 08).
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compaction.agent.backend import connect
from compaction.core.messages import InvalidConversation, is_valid, text_of, validate
from compaction.core.transcript import TranscriptError, read_transcript
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.layers.summarize import (
    NO_TOOLS_HEAD,
    SummaryFailed,
    extract_summary,
    strip_analysis,
    summary_from_blocks,
)
from compaction.layers.summary_request import with_summary_prompt
from compaction.presentation.language import say

ANSWERS = [
    "<analysis>first I read calc.py</analysis>\n<summary>1. Primary Request and Intent: fix add</summary>",
    "<summary>no analysis here</summary>",
    "  <analysis>\nmany\nlines\n</analysis>  \n\n<summary>\nkept\n</summary>\n  ",
    "<analysis>one</analysis> middle <analysis>two</analysis> end",
    "<summary>s</summary>\n<analysis>an analysis after the summary</analysis>",
    "<analysis>never closed, so it runs to the end <summary>lost</summary>",
    "plain text with no tags at all",
]


def _lists() -> list[list[dict]]:
    """Valid course sessions cut at several places: ending with results, a text reply, the task."""
    out = []
    for session in course_sessions():
        out += [session[:cut] for cut in (len(session), len(session) - 1, 3, 1)]
    return [s for s in out if is_valid(s)]


def check_with_summary_prompt(fn: Callable[..., list[dict]]) -> CheckReport:
    """``fn(messages, focus=None)`` builds the summary request exactly as the package does."""

    def same_as_package(focus):
        def case():
            for messages in _lists():
                before = copy.deepcopy(messages)
                got, want = fn(messages, focus=focus), with_summary_prompt(messages, focus=focus)
                assert messages == before, say("the input list was changed; build a new one")
                assert got == want, say(
                    "differs from the package on a {n}-message list", n=f"{len(messages)}"
                )

        return case

    def stays_valid():
        for messages in _lists():
            got = fn(messages)
            validate(got)
            last = got[-1]["content"][-1]
            assert last.get("type") == "text" and last["text"].startswith(NO_TOOLS_HEAD), say(
                "the last block must be the summary prompt, starting with NO_TOOLS_HEAD"
            )

    return run_cases(
        "with_summary_prompt",
        [
            ("identical to the package on every course session", same_as_package(None)),
            ("identical with a focus", same_as_package("the failing test")),
            ("the request passes validate and ends with the prompt", stays_valid),
        ],
    )


def check_strip_analysis(fn: Callable[[str], str]) -> CheckReport:
    """``fn(answer)`` removes every ``<analysis>`` part (an unclosed one runs to the end) and strips."""

    def case_for(answer):
        def case():
            got, want = fn(answer), strip_analysis(answer)
            given = say("for the answer {answer}: ", answer=f"{answer!r}")
            assert isinstance(got, str), say(
                "{given}returned {kind}, expected a string", given=given, kind=f"{type(got).__name__}"
            )
            if got == want:
                return
            if "<analysis>" in got:
                where = got.index("<analysis>")
                raise AssertionError(
                    say(
                        "{given}an <analysis> part is left at character {where}: {got}",
                        given=given,
                        where=where,
                        got=f"{got[where : where + 40]!r}",
                    )
                )
            if got.strip() != got:
                raise AssertionError(
                    say(
                        "{given}surrounding whitespace is left: {got}...; strip the result",
                        given=given,
                        got=f"{got[:30]!r}",
                    )
                )
            raise AssertionError(
                say(
                    "{given}got {got}, expected {want}",
                    given=given,
                    got=f"{got[:60]!r}",
                    want=f"{want[:60]!r}",
                )
            )

        return case

    names = [
        "one analysis, then the summary",
        "no analysis at all",
        "analysis and summary with blank lines around",
        "two analyses, text between and after",
        "an analysis after the summary",
        "an analysis never closed runs to the end",
        "plain text, no tags",
    ]
    return run_cases("strip_analysis", [(name, case_for(a)) for name, a in zip(names, ANSWERS, strict=True)])


FAILED = "SummaryFailed"  # what _outcome says when the call raised SummaryFailed


def _outcome(fn: Callable, content: list[dict]) -> tuple[str, object]:
    """("summary", what fn returned) or (FAILED, None): kept apart so a message shows what was returned."""
    try:
        return "summary", fn(copy.deepcopy(content))
    except SummaryFailed:
        return FAILED, None


BLOCKS = {
    "a text answer with analysis and summary": [{"type": "text", "text": ANSWERS[0]}],
    "a summary spread over two text blocks": [
        {"type": "text", "text": "<analysis>x</analysis><summary>part one, "},
        {"type": "text", "text": "part two</summary>"},
    ],
    "a summary that also calls a tool": [
        {"type": "text", "text": "<summary>s</summary>"},
        {"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": "ls"}},
    ],
    "only a tool call": [{"type": "tool_use", "id": "toolu_8", "name": "read_file", "input": {"path": "a"}}],
    "an empty answer": [],
    "blank text": [{"type": "text", "text": "  \n "}],
    "text without summary tags": [{"type": "text", "text": "Sure, here is what we did."}],
    "an empty summary": [{"type": "text", "text": "<summary>   </summary>"}],
    "only an analysis": [{"type": "text", "text": "<analysis><summary>x</summary></analysis>"}],
}


def check_summary_from_blocks(fn: Callable[[list[dict]], str]) -> CheckReport:
    """``fn(content)`` returns the summary, or raises SummaryFailed exactly when the package does."""

    def case_for(content):
        def case():
            (got_kind, got), (want_kind, want) = _outcome(fn, content), _outcome(summary_from_blocks, content)
            if (got_kind, got) == (want_kind, want):
                return
            given = say("for the content {content}: ", content=f"{content!r}")
            if got_kind != FAILED and not isinstance(got, str):
                raise AssertionError(
                    say("{given}returned {kind}, expected a string", given=given, kind=type(got).__name__)
                )
            if want_kind == FAILED:
                raise AssertionError(
                    say(
                        "{given}must raise SummaryFailed, but returned {got}",
                        given=given,
                        got=f"{got[:60]!r}",
                    )
                )
            if got_kind == FAILED:
                raise AssertionError(
                    say(
                        "{given}raised SummaryFailed, but the answer holds a summary: {want}",
                        given=given,
                        want=f"{want[:60]!r}",
                    )
                )
            joined = "".join(b.get("text", "") for b in content if b.get("type") == "text")
            if (
                len([b for b in content if b.get("type") == "text"]) > 1
                and got != want
                and (" ".join(got.split()) == " ".join(want.split()))
            ):
                raise AssertionError(
                    say(
                        "{given}got {got}, expected {want}: the text blocks are consecutive pieces of"
                        " one answer, so join them with nothing between them ({joined}...)",
                        given=given,
                        got=f"{got[:70]!r}",
                        want=f"{want[:70]!r}",
                        joined=f"{joined[:50]!r}",
                    )
                )
            raise AssertionError(
                say(
                    "{given}got {got}, expected {want}",
                    given=given,
                    got=f"{got[:70]!r}",
                    want=f"{want[:70]!r}",
                )
            )

        return case

    return run_cases("summary_from_blocks", [(name, case_for(content)) for name, content in BLOCKS.items()])


# ---------------------------------------------------------------- the chapter's summary layer


class WatchingClient:
    """A client that passes calls to the offline model and records each request and answer.

    Before each call it looks in ``transcript_dir`` for a file that reads back as ``expected``:
    that is how the check knows the transcript was on disk *before* the summary was asked for.
    """

    def __init__(self, client: Any, transcript_dir: Path, expected: list[dict]):
        self.inner, self.messages = client, self
        self.transcript_dir, self.expected = transcript_dir, expected
        self.calls: list[tuple[dict, bool, str]] = []  # (request, transcript on disk, answer text)

    def saved(self) -> list[Path]:
        """The files of transcript_dir that read back as the whole list."""
        found = []
        for path in sorted(self.transcript_dir.glob("*")) if self.transcript_dir.is_dir() else []:
            try:
                if path.is_file() and read_transcript(path) == self.expected:
                    found.append(path)
            except TranscriptError:
                continue
        return found

    def create(self, **request: Any) -> Any:
        on_disk = bool(self.saved())
        response = self.inner.messages.create(**request)
        said = "".join(getattr(b, "text", "") for b in response.content if b.type == "text")
        self.calls.append((request, on_disk, said))
        return response


def _summary_cases() -> list[tuple[str, list[dict]]]:
    """Named valid lists to summarize: each course session, whole and ending with an assistant reply."""
    out = []
    for number, session in enumerate(course_sessions(), 1):
        out.append((f"session {number} ({len(session)} messages)", session))
        ends = [i for i in range(2, len(session)) if session[i - 1]["role"] == "assistant"]
        ends = [i for i in ends if is_valid(session[:i])]  # an assistant reply with no tool call
        if ends:
            cut = session[: ends[-1]]
            out.append((f"session {number} cut after its assistant reply {len(cut) - 1}", cut))
    return out


class LayerRuns:
    """A learner's layer run once per case, through a ``WatchingClient``, for every rule to read."""

    def __init__(self, fn: Callable[..., list[dict]], client: Any, prefix: str):
        self.fn, self.client, self.prefix = fn, client, prefix
        self.runs: dict[str, tuple] = {}  # case name -> (input, its copy, output or exception, client)

    def __call__(self, name: str, messages: list[dict]) -> tuple:
        """(input, its copy, output, watching client); AssertionError when the layer raised."""
        if name not in self.runs:
            folder = Path(tempfile.mkdtemp(prefix=self.prefix))
            watching = WatchingClient(self.client, folder / "transcripts", copy.deepcopy(messages))
            before = copy.deepcopy(messages)
            try:
                got = self.fn(messages, client=watching, transcript_dir=folder / "transcripts")
            except NotImplementedError:
                raise
            except Exception as exc:  # noqa: BLE001 - each case of this list reports it
                got = exc
            self.runs[name] = (messages, before, got, watching)
        messages, before, got, watching = self.runs[name]
        if isinstance(got, Exception):
            raise AssertionError(
                say("{name}: raised {kind}: {got}", name=name, kind=f"{type(got).__name__}", got=got)
            )
        return messages, before, got, watching


def check_summary_layer(fn: Callable[..., list[dict]]) -> CheckReport:
    """``fn(messages, *, client, transcript_dir)``: transcript first, then one user message: the summary."""
    run = LayerRuns(fn, connect("offline", context_window=1_000_000), "check-summary-")

    def each(rule: Callable[..., None]) -> Callable[[], None]:
        def case() -> None:
            for name, messages in _summary_cases():
                messages, before, got, watching = run(name, messages)
                rule(name, messages, before, got, watching)

        return case

    def untouched(name, messages, before, got, watching):
        assert messages == before, say(
            "{name}: the input list was changed; build a new list instead", name=name
        )

    def transcript_first(name, messages, before, got, watching):
        saved = watching.saved()
        assert saved, say(
            "{name}: no file in transcript_dir reads back as the {n} messages (one JSON"
            " object per line, in order)",
            name=name,
            n=f"{len(messages)}",
        )
        assert watching.calls, say("{name}: the model was never asked for a summary", name=name)
        assert watching.calls[0][1], say(
            "{name}: the summary was asked for before the transcript was on disk; write it first", name=name
        )

    def asks_properly(name, messages, before, got, watching):
        request = watching.calls[0][0]["messages"] if watching.calls else []
        assert request, say("{name}: the model was never asked for a summary", name=name)
        try:
            validate(request)
        except InvalidConversation as exc:
            raise AssertionError(
                say("{name}: the summary request breaks the strict form: {exc}", name=name, exc=exc)
            ) from None
        last = request[-1]["content"][-1] if isinstance(request[-1]["content"], list) else {}
        assert last.get("type") == "text" and last.get("text", "").startswith(NO_TOOLS_HEAD), say(
            "{name}: the request's last block must be the summary prompt, starting {NO_TOOLS_HEAD}",
            name=name,
            NO_TOOLS_HEAD=f"{NO_TOOLS_HEAD[:20]!r}",
        )
        assert request[: len(messages) - 1] == messages[: len(messages) - 1], say(
            "{name}: the request must carry the whole history, unchanged, before the prompt", name=name
        )

    def one_user_message(name, messages, before, got, watching):
        assert isinstance(got, list) and len(got) == 1, say(
            "{name}: expected a list of ONE message, got {kind} of length {value}",
            name=name,
            kind=f"{type(got).__name__}",
            value=f"{len(got) if isinstance(got, list) else '-'}",
        )
        assert isinstance(got[0], dict) and got[0].get("role") == "user", say(
            "{name}: the message must be a user message", name=name
        )
        try:
            validate(got)
        except InvalidConversation as exc:
            raise AssertionError(
                say("{name}: the new list breaks the strict form: {exc}", name=name, exc=exc)
            ) from None

    def opening(name, got) -> str:
        one_user_message(name, None, None, got, None)
        return text_of(got[0].get("content"))

    def holds_summary(name, messages, before, got, watching):
        said = watching.calls[-1][2] if watching.calls else ""
        summary, shown = extract_summary(said), opening(name, got)
        assert summary in shown, say(
            "{name}: the text inside the answer's <summary> tags is not in the message", name=name
        )
        assert "<analysis>" not in shown, say(
            "{name}: the answer's <analysis> reached the new list; keep only the summary", name=name
        )

    def names_transcript(name, messages, before, got, watching):
        saved, shown = watching.saved(), opening(name, got)
        assert saved and any(path.name in shown for path in saved), say(
            "{name}: the message must name the transcript file, so the model can read it later", name=name
        )

    return run_cases(
        "summary layer",
        [
            ("writes the whole list to a transcript, before the summary call", each(transcript_first)),
            ("asks with the whole history and the prompt as its last block", each(asks_properly)),
            ("returns one user message that passes validate", each(one_user_message)),
            ("keeps the summary, drops the analysis", each(holds_summary)),
            ("names the transcript file in the message", each(names_transcript)),
            ("leaves the input list unchanged", each(untouched)),
        ],
    )
