"""The widgets as a learner reads them: what each pass changed, under the original message numbers.

Each test reads the HTML a saved notebook holds (the live widget shows the same), on hand-built
lists and on sessions of every shape the strategies draw, after the real layers.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.core.messages import assistant, tail_starts, text, tool_result, tool_use, user
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens, message_tokens
from compaction.importers import sessions_in
from compaction.layers.budget import Budget, tool_result_budget
from compaction.layers.micro import Micro, micro_compact, placeholder_for
from compaction.layers.snip import Snip, snip_compact, snip_cuts, snip_placeholder
from compaction.layers.summarize import Summary, continuation_text
from compaction.pipeline.compactor import Compactor
from compaction.presentation.language import use_language
from compaction.presentation.palette import CHANGES, KINDS, all_colors
from compaction.views.widgets import (
    BeforeAfter,
    MessageListView,
    PipelineStepper,
    WindowGauge,
    align,
    block_kinds,
    describe_change,
    holds_placeholder,
    message_rows,
    placeholder_words,
)
from compaction.views.widgets.live import LIVE_STYLE
from compaction.views.widgets.measure import Meter
from compaction.views.widgets.rows import message_row
from tests.conversations import Call, Turn, build_session, long_sessions, sessions

HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def session(rounds: int = 3) -> list[dict]:
    """A task, then ``rounds`` read_file round trips, then a closing answer."""
    out = [user("Fix the bug in calc.py.")]
    for k in range(rounds):
        out.append(assistant(f"Reading file {k}.", tool_use(f"toolu_{k}", "read_file", {"path": f"m{k}.py"})))
        out.append(user(tool_result(f"toolu_{k}", f"def f{k}():\n" + "    return 1\n" * (10 * (k + 1)))))
    out.append(assistant("Done."))
    return out


def summarized(messages: list[dict], transcript: str = ".transcripts/transcript-0001.jsonl") -> list[dict]:
    """What a summary pass leaves: one message that names the transcript of what it replaced."""
    body = "<summary>1. Primary Request and Intent:\n   Fix the bug.</summary>"
    return [user(continuation_text(body, transcript, messages=len(messages)))]


class Rows(HTMLParser):
    """Every row of a view: its number, classes, and the classes of the elements around it."""

    def __init__(self, source: str):
        super().__init__()
        self.stack: list[str] = []  # class attribute of each open element
        self.rows: list[dict] = []  # {"number", "classes", "inside"}
        self._want_number = False
        self.feed(source)

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if "compaction-row" in classes.split():
            self.rows.append({"number": None, "classes": classes.split(), "inside": " ".join(self.stack)})
            self._want_number = True
        if tag not in ("br", "img", "input"):
            self.stack.append(classes)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self._want_number and data.strip():
            self.rows[-1]["number"] = data.strip()
            self._want_number = False


def rows_of(source: str) -> list[dict]:
    return Rows(source).rows


# ---------------------------------------------------------------- rows


def test_block_kinds_name_the_tool_behind_each_use_and_result_and_mark_errors():
    msgs = [
        user("go"),
        assistant("Running.", tool_use("toolu_1", "bash", {"command": "ls"})),
        user(tool_result("toolu_1", "no such dir", is_error=True), text("and then?")),
    ]
    rows = message_rows(msgs)
    assert [r.kinds for r in rows] == ["text", "text, tool_use:bash", "tool_result:bash!, text"]
    assert block_kinds(msgs[2]) == "tool_result:?!, text"
    assert "the tool reported an error" in MessageListView(msgs)._repr_html_()  # the ! is explained


def test_a_row_counts_its_message_in_cl100k_by_default_and_says_so():
    msgs = session()
    assert [r.tokens for r in message_rows(msgs)] == [message_tokens(m, "tiktoken") for m in msgs]
    view = MessageListView(msgs)
    assert view.total == estimate_tokens(msgs, "tiktoken") and "(tiktoken cl100k)" in view.header()
    assert "(chars/4)" in MessageListView(msgs, method="chars").header()


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (tool_result("toolu_1", "[snipped 40 messages]"), True),
        (tool_result("toolu_1", "[Earlier tool result cleared: read_file a.py]"), True),
        (
            tool_result("toolu_1", "<persisted-output>\nsaved to tool-results/x.txt\n</persisted-output>"),
            True,
        ),
        (tool_result("toolu_1", "ordinary output mentioning [snipped later"), False),
        (tool_result("toolu_1", placeholder_for("read_file", {"path": "a.py"})), True),
        (text("[snip] 12 earlier messages were removed from the middle of this conversation."), True),
        (text("we talked about [snip] before"), False),
    ],
)
def test_placeholders_and_persisted_markers_are_recognised_and_their_words_shown(block, expected):
    msgs = [user("go"), assistant(tool_use("toolu_1", "bash", {})), user(block)]
    assert holds_placeholder(msgs[2]) is expected
    source = MessageListView(msgs)._repr_html_()
    assert ("compaction-placeholder" in source) is expected
    assert ("compaction-words" in source) is expected


def test_a_row_opens_onto_its_content_cut_when_long():
    msgs = [
        user("go"),
        assistant(tool_use("toolu_1", "read_file", {"path": "big.py"})),
        user(tool_result("toolu_1", "A" * 3_000 + "THE END")),
    ]
    source = MessageListView(msgs)._repr_html_()
    assert source.count("<details class='compaction-row") == 3
    assert "[tool_use read_file toolu_1]" in source and "&quot;path&quot;: &quot;big.py&quot;" in source
    assert "[tool_result of read_file]" in source
    assert "THE END" not in source and "1,507 more characters" in source


def test_a_summary_row_shows_its_opening_and_opens_onto_its_sections():
    msgs = summarized(session())
    (row,) = message_rows(msgs)
    assert row.placeholder and "transcript .transcripts/transcript-0001.jsonl" in row.words[0]
    assert "1. Primary Request and Intent:" in row.content


def test_rows_escape_html_in_previews_and_content():
    source = MessageListView([user("<script>alert(1)</script>")])._repr_html_()
    assert "<script>" not in source and "&lt;script&gt;" in source


# ---------------------------------------------------------------- MessageListView


def test_a_short_list_shows_every_row_under_its_number_and_no_button():
    view = MessageListView(session(), title="demo")
    assert [r["number"] for r in rows_of(view._repr_html_())] == [str(i) for i in range(8)]
    assert view.widget.children[-1].layout.display == "none"


def test_rows_beyond_the_limit_wait_behind_show_more_and_in_the_saved_form_behind_a_fold():
    view = MessageListView(session(10), limit=5)  # 22 messages
    rows = rows_of(view._repr_html_())
    assert [r["number"] for r in rows] == [str(i) for i in range(22)]
    assert [r["number"] for r in rows if "compaction-collapsed" not in r["inside"]] == [
        "0",
        "1",
        "2",
        "3",
        "4",
    ]
    assert "17 more messages (5-21)</summary>" in view._repr_html_()
    button = view.widget.children[-1]
    assert "compaction-show-more" in button._dom_classes
    assert "compaction-msglist" in view.widget._dom_classes
    button.click()
    assert view.shown == 10 and len(rows_of(view.widget.children[1].value)) == 10
    for _ in range(3):
        button.click()
    assert view.shown == 22 and button.layout.display == "none"
    assert "more messages" not in view._repr_html_() and len(rows_of(view.widget.children[1].value)) == 22


def test_a_very_long_list_draws_at_most_200_folded_rows_so_the_notebook_stays_small():
    view = MessageListView(session(150), limit=40)  # 302 messages
    rows = [int(r["number"]) for r in rows_of(view._repr_html_())]
    assert rows == [*range(40), *range(40, 140), *range(202, 302)]
    assert "… 62 more messages not drawn" in view._repr_html_()


def test_the_live_list_shows_the_same_rows_as_the_saved_one():
    view = MessageListView(micro_compact(session(6), keep_recent=1, min_chars=10))
    live = "".join(child.value.removeprefix(LIVE_STYLE) for child in view.widget.children[:2])
    assert live in view._repr_html_()  # a short list: the saved form is the live one


def test_the_text_form_is_short_and_has_no_ids_or_addresses():
    view = MessageListView(session(), title="demo")
    total = estimate_tokens(session(), "tiktoken")
    assert repr(view) == f"MessageListView(demo: 8 messages, {total:,} tokens (tiktoken cl100k), showing 8)"
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"] == repr(view)
    assert bundle["text/html"] == view._repr_html_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == view.widget.model_id


def test_the_text_forms_speak_one_language_in_the_japanese_edition():
    raw = session(4)
    steps = [("input", raw), ("snip", snip_compact(raw, max_messages=5, keep_head=1))]
    with use_language("ja"):
        shown = repr(MessageListView(session(), title="demo")), repr(PipelineStepper(steps))
    assert shown[0].startswith("MessageListView(demo: 8 メッセージ、"), shown
    assert shown[0].endswith("、8 件を表示)"), shown
    assert shown[1].startswith("PipelineStepper(1 回の処理; "), shown
    allowed = {"MessageListView", "PipelineStepper", "demo", "tiktoken", "snip"}  # names, not prose
    for form in shown:
        assert not set(re.findall(r"[A-Za-z]{3,}", form)) - allowed, form


def test_the_static_form_is_the_same_every_time():
    assert MessageListView(session())._repr_html_() == MessageListView(session())._repr_html_()


@pytest.mark.parametrize(("args", "kwargs"), [(("nope",), {}), ((session(),), {"limit": 0}), ((5,), {})])
def test_a_view_of_something_else_is_a_clear_error(args, kwargs):
    with pytest.raises((TypeError, ValueError), match="messages|limit"):
        MessageListView(*args, **kwargs)


# ---------------------------------------------------------------- align


def test_a_snip_is_kept_head_one_changed_message_one_dropped_range_and_the_kept_tail():
    raw = session(12)
    head, tail = snip_cuts(raw, max_messages=10, keep_head=3)
    changes = align(raw, snip_compact(raw, max_messages=10, keep_head=3))
    assert [(c.kind, c.before) for c in changes] == [
        ("same", range(0, head - 1)),
        ("changed", range(head - 1, head)),
        ("dropped", range(head, tail)),
        ("same", range(tail, len(raw))),
    ]


def test_a_summary_drops_everything_and_adds_one_message():
    raw = session(4)
    changes = align(raw, summarized(raw))
    assert [(c.kind, c.before, c.after) for c in changes] == [
        ("dropped", range(0, len(raw)), range(0, 0)),
        ("added", range(len(raw), len(raw)), range(0, 1)),
    ]


def covers_both_lists_in_order(changes, before, after) -> bool:
    olds = [i for c in changes for i in c.before]
    news = [j for c in changes for j in c.after]
    return olds == list(range(len(before))) and news == list(range(len(after)))


@settings(max_examples=60)
@given(long_sessions(), st.integers(4, 20))
def test_after_snip_every_message_is_accounted_for_once_and_the_gap_is_the_cut(raw, max_messages):
    after = snip_compact(raw, max_messages=max_messages, keep_head=3)
    changes = align(raw, after)
    assert covers_both_lists_in_order(changes, raw, after)
    head, tail = snip_cuts(raw, max_messages=max_messages, keep_head=3)
    dropped = [i for c in changes if c.kind == "dropped" for i in c.before]
    assert dropped == list(range(head, tail))


@settings(max_examples=60)
@given(sessions(), st.integers(0, 3))
def test_after_micro_exactly_the_rewritten_messages_are_changed(raw, keep_recent):
    after = micro_compact(raw, keep_recent=keep_recent)
    changes = align(raw, after)
    assert covers_both_lists_in_order(changes, raw, after)
    changed = [i for c in changes if c.kind == "changed" for i in c.before]
    assert changed == [i for i, (a, b) in enumerate(zip(raw, after, strict=True)) if a != b]


@settings(max_examples=60)
@given(long_sessions(), st.integers(1, 12))
def test_after_a_summary_with_a_kept_tail_the_tail_keeps_its_numbers(raw, keep):
    starts = [k for k in tail_starts(raw) if k >= len(raw) - keep] or [len(raw)]
    after = summarized(raw[: starts[0]]) + raw[starts[0] :]
    changes = align(raw, after)
    assert covers_both_lists_in_order(changes, raw, after)
    assert [c.kind for c in changes][:2] == ["dropped", "added"]
    assert [i for c in changes if c.kind == "same" for i in c.before] == list(range(starts[0], len(raw)))


# ---------------------------------------------------------------- BeforeAfter


def test_a_snip_pass_reads_like_the_issue_asks():
    raw = session(12)
    after = snip_compact(raw, max_messages=10, keep_head=3)
    head, tail = snip_cuts(raw, max_messages=10, keep_head=3)
    view = BeforeAfter(raw, after, saved_to=".transcripts/transcript-0001.jsonl")
    source = view._repr_html_()
    gone = estimate_tokens(raw[head:tail], "tiktoken")
    assert (
        f"✂ messages {head}-{tail - 1} dropped: {tail - head} messages, {gone:,} tokens, "
        "in transcript .transcripts/transcript-0001.jsonl"
    ) in source
    assert html.escape(snip_placeholder(tail - head)) in source
    numbers = [r["number"] for r in rows_of(source)]
    assert numbers == [str(i) for i in [*range(head), *range(tail, len(raw))]]
    assert "compaction-legend" in source
    assert view.change.startswith(f"kept {head - 1 + len(raw) - tail}, replaced 1, dropped {tail - head}")


def test_without_a_transcript_the_gap_says_none_was_named():
    raw = session(12)
    source = BeforeAfter(raw, snip_compact(raw, max_messages=10))._repr_html_()
    assert "no transcript named (saved_to=)" in source


def test_a_summary_pass_names_the_transcript_the_summary_points_to():
    raw = session(4)
    source = BeforeAfter(raw, summarized(raw))._repr_html_()
    assert f"✂ messages 0-{len(raw) - 1} dropped" in source
    assert "in transcript .transcripts/transcript-0001.jsonl" in source
    (new,) = [r for r in rows_of(source) if "compaction-added" in r["classes"]]
    assert new["number"] == "new"


def test_a_micro_pass_shows_each_placeholder_with_tokens_before_and_after():
    raw = session(6)
    after = micro_compact(raw, keep_recent=1, min_chars=10)
    source = BeforeAfter(raw, after)._repr_html_()
    for old, new in zip(raw, after, strict=True):
        if old != new:
            (words,) = placeholder_words(new)
            assert html.escape(words) in source
            tokens = f"{message_tokens(old, 'tiktoken'):,} → {message_tokens(new, 'tiktoken'):,}"
            assert tokens in source
    changed = [r for r in rows_of(source) if "compaction-changed" in r["classes"]]
    assert len(changed) == sum(a != b for a, b in zip(raw, after, strict=True)) == 5


def test_a_budget_pass_shows_where_the_output_went(tmp_path):
    raw = [
        user("go"),
        assistant(tool_use("toolu_big", "bash", {"command": "cat log"})),
        user(tool_result("toolu_big", "line\n" * 20_000)),
    ]
    store = OutputStore(tmp_path / "store", base=tmp_path)
    after = tool_result_budget(raw, max_chars=10_000, store=store)
    source = BeforeAfter(raw, after)._repr_html_()
    assert "Full output saved to: store/tool-results/toolu_big" in source
    assert "Output too large (100,000 characters)." in source


def test_unchanged_runs_fold_but_changed_rows_never_do():
    raw = session(20)
    after = list(raw)
    after[22] = micro_compact(raw, keep_recent=0, min_chars=10)[22]  # one result in the middle cleared
    source = BeforeAfter(raw, after)._repr_html_()
    rows = rows_of(source)
    assert source.count("class='compaction-collapsed'") == 2
    (changed,) = [r for r in rows if "compaction-changed" in r["classes"]]
    assert changed["number"] == "22" and "compaction-collapsed" not in changed["inside"]
    shown = [r["number"] for r in rows if "compaction-collapsed" not in r["inside"]]
    assert shown == ["21", "22", "23"]  # the change and one row of context on each side
    assert "≡ messages 0-20 unchanged: 21 messages" in source and "≡ messages 24-41 unchanged" in source


def test_bars_share_one_scale_so_a_smaller_list_looks_smaller():
    raw = session(6)
    after = micro_compact(raw, keep_recent=1, min_chars=10)
    view = BeforeAfter(raw, after, window=4_000)
    widths = gauge_widths(view._repr_html_())
    before, shrunk = sum(widths[: len(widths) // 2]), sum(widths[len(widths) // 2 :])
    assert before == pytest.approx(100 * estimate_tokens(raw, "tiktoken") / 4_000, abs=0.01)
    assert shrunk == pytest.approx(100 * estimate_tokens(after, "tiktoken") / 4_000, abs=0.01)
    assert view.scale == max(message_tokens(m, "tiktoken") for m in raw + after)


def gauge_widths(source: str) -> list[float]:
    return [float(w) for w in re.findall(r"class='compaction-kind-\w+'[^>]*width:([\d.]+)%", source)]


def test_the_live_before_after_is_the_saved_html():
    view = BeforeAfter(session(), micro_compact(session(), keep_recent=1, min_chars=10))
    assert view.widget.value == LIVE_STYLE + view._repr_html_()
    assert repr(view) == f"BeforeAfter({view.change})"


def test_describe_change_counts_kept_replaced_dropped_and_added():
    raw = session(4)  # 10 messages
    head, tail = snip_cuts(raw, max_messages=5, keep_head=1)
    assert (head, tail) == (1, 7)
    assert describe_change(raw, snip_compact(raw, max_messages=5, keep_head=1)).startswith(
        "kept 3, replaced 1, dropped 6 messages"
    )
    assert describe_change(raw[:1], raw[:3]).startswith("kept 1, replaced 0, dropped 0, added 2 messages")


@settings(max_examples=40)
@given(long_sessions(), st.integers(4, 20))
def test_on_any_session_snip_then_micro_show_the_placeholders_words_and_the_tail_numbers(raw, max_messages):
    snipped = snip_compact(raw, max_messages=max_messages, keep_head=3)
    head, tail = snip_cuts(raw, max_messages=max_messages, keep_head=3)
    source = BeforeAfter(raw, snipped)._repr_html_()
    numbers = [r["number"] for r in rows_of(source)]
    assert numbers == [str(i) for i in [*range(head), *range(tail, len(raw))]]  # the original numbers
    if tail > head:
        n, gone = tail - head, estimate_tokens(raw[head:tail], "tiktoken")
        span = f"messages {head}-{tail - 1}" if n > 1 else f"message {head}"
        assert f"✂ {span} dropped: {n} message{'s' if n > 1 else ''}, {gone:,} tokens," in source
        assert all(html.escape(w[:600]) in source for w in placeholder_words(snipped[head - 1]))
    cleared = micro_compact(snipped, keep_recent=1, min_chars=10)
    source = BeforeAfter(snipped, cleared)._repr_html_()
    for new in cleared:
        assert all(html.escape(w[:600]) in source for w in placeholder_words(new))


@settings(max_examples=40)
@given(sessions(max_turns=8), st.integers(0, 2))
def test_on_any_session_a_micro_pass_shows_every_placeholder_on_a_changed_row_under_its_number(raw, keep):
    cleared = micro_compact(raw, keep_recent=keep, min_chars=10)
    source = BeforeAfter(raw, cleared)._repr_html_()
    changed = [r["number"] for r in rows_of(source) if "compaction-changed" in r["classes"]]
    assert changed == [str(i) for i, (a, b) in enumerate(zip(raw, cleared, strict=True)) if a != b]
    assert all(
        "compaction-collapsed" not in r["inside"]
        for r in rows_of(source)
        if "compaction-changed" in r["classes"]
    )
    for old, new in zip(raw, cleared, strict=True):
        if old != new:
            assert all(html.escape(w[:600]) in source for w in placeholder_words(new))


DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
REAL = sessions_in(DATA)  # (file name, messages) of the real sessions other projects recorded


@pytest.mark.skipif(not REAL, reason=f"the shared session data is not at {DATA}")
@pytest.mark.parametrize(("name", "raw"), REAL, ids=[name for name, _ in REAL])
def test_on_real_sessions_the_snip_gap_and_every_placeholder_read_as_on_the_course_session(name, raw):
    snipped = snip_compact(raw, max_messages=6, keep_head=2)
    head, tail = snip_cuts(raw, max_messages=6, keep_head=2)
    source = BeforeAfter(raw, snipped, saved_to="t.jsonl")._repr_html_()
    numbers = [r["number"] for r in rows_of(source)]
    if tail > head:
        gone = estimate_tokens(raw[head:tail], "tiktoken")
        plural = "s" if tail - head > 1 else ""
        assert f"dropped: {tail - head} message{plural}, {gone:,} tokens, in transcript t.jsonl" in source
    assert numbers == [str(i) for i in [*range(head), *range(tail, len(raw))]]
    cleared = micro_compact(raw, keep_recent=1)
    source = BeforeAfter(raw, cleared)._repr_html_()
    for new in cleared:
        assert all(html.escape(w[:600]) in source for w in placeholder_words(new))


# ---------------------------------------------------------------- WindowGauge


def test_the_gauge_splits_the_tokens_by_kind_and_adds_up_to_the_list():
    raw = session(6)
    after = micro_compact(raw, keep_recent=1, min_chars=10)
    gauge = WindowGauge(after, before=raw, window=8_000, threshold=6_000, overhead=500)
    assert gauge.total == estimate_tokens(after, "tiktoken") + 500
    assert gauge.fill["system_tools"] == 500 and gauge.fill["placeholders"] > 0
    assert gauge.fill_before.get("placeholders", 0) == 0
    assert gauge.fill["tool_results"] < gauge.fill_before["tool_results"]
    assert WindowGauge(summarized(raw)).fill["summary"] == estimate_tokens(summarized(raw), "tiktoken")
    source = gauge._repr_html_()
    assert "left:75.000%" in source and "left:100.000%" in source  # threshold and window lines
    assert "placeholders and markers 0 → " in source and "system and tools 500 → 500" in source
    assert repr(gauge).startswith(
        f"WindowGauge(in context: {gauge.total_before:,} -> {gauge.total:,} of 8,000"
    )


def test_a_gauge_of_a_compactor_uses_its_window_threshold_and_estimate(compactor):
    raw = long_reads()
    gauge = WindowGauge.of(compactor, raw)
    assert (gauge.window, gauge.threshold) == (8_000, compactor.threshold)
    assert gauge.total == max(compactor.estimate(raw), estimate_tokens(raw, "tiktoken"))
    stepper = PipelineStepper.run(compactor, raw)
    assert stepper.tokens[0][0] == compactor.estimate(raw)  # the figure the triggers compare


def test_the_stepper_shows_the_system_prompt_and_tools_the_api_counted_beyond_the_messages(compactor):
    raw = long_reads()
    sent = raw[:-2]
    compactor.observe(sent, {"input_tokens": estimate_tokens(sent, "tiktoken") + 700})  # 700: system + tools
    stepper = PipelineStepper.run(compactor, raw)
    gauge = stepper.view().gauge
    assert gauge.fill_before["system_tools"] == stepper.tokens[stepper.position][0] - estimate_tokens(
        stepper.inputs[stepper.position], "tiktoken"
    )
    assert gauge.fill_before["system_tools"] == 700
    assert "system and tools 700" in stepper._repr_html_()


def test_a_list_over_the_window_stretches_the_scale_instead_of_overflowing():
    gauge = WindowGauge(session(30), window=1_000)
    assert gauge.scale == gauge.total > 1_000
    assert sum(gauge_widths(gauge._repr_html_())) == pytest.approx(100, abs=0.01)


# ---------------------------------------------------------------- PipelineStepper


@pytest.fixture
def compactor(tmp_path):
    return Compactor(
        [Budget(max_chars=10_000), Snip(max_messages=20), Micro()],
        store=OutputStore(tmp_path / "store", base=tmp_path),
        transcript_dir=tmp_path / ".transcripts",
        context_window=8_000,
    )


def long_reads(turns: int = 15) -> list[dict]:
    return build_session([Turn([Call("read_file", f"line {k}\n" * 60)]) for k in range(turns)])


def test_the_stepper_opens_on_the_first_pass_that_changed_something(compactor):
    stepper = PipelineStepper.run(compactor, long_reads())
    assert [name for name, _ in stepper.steps] == ["budget", "snip", "micro"]
    assert stepper.changed[:2] == [False, True] and stepper.position == 1
    assert stepper.label().startswith("pass 2/3: snip, tokens ")


def test_a_pass_that_did_nothing_says_which_trigger_held_it_back(compactor):
    stepper = PipelineStepper.run(compactor, long_reads())
    newest = len("line 14\n" * 60)
    assert stepper.reasons[0].startswith(f"not triggered: the newest tool results hold {newest} characters")
    assert "max_chars is 10,000" in stepper.reasons[0]
    if not stepper.changed[2]:
        assert re.search(
            r"not triggered: [\d,]+ tokens, within 50% of the threshold \([\d,]+\)", stepper.reasons[2]
        )
    source = stepper._repr_html_()
    assert html.escape(stepper.reasons[0]) in source


def test_the_stepper_names_the_transcript_that_holds_the_dropped_range(compactor):
    stepper = PipelineStepper.run(compactor, long_reads())
    (event,) = [e for e in compactor.events if e.kind == "snip"]
    name = event.detail.removeprefix("transcript ")
    assert f"in transcript .transcripts/{name}" in stepper.view(1)._repr_html_()


def test_an_idle_snip_and_summary_say_why_in_numbers(compactor):
    small = long_reads(3)
    compactor.layers.append(Summary())  # over the threshold but with no client: the reason says so
    compactor.threshold = 10
    stepper = PipelineStepper.run(compactor, small)
    reasons = dict(zip([n for n, _ in stepper.steps], stepper.reasons, strict=True))
    assert reasons["snip"] == f"not triggered: {len(small)} messages, within max_messages 20"
    assert re.fullmatch(
        r"over the threshold \([\d,]+ > 10\), but the Compactor has no client or transcript_dir",
        reasons["summary"],
    )


def test_the_stepper_works_on_the_default_pipeline_and_asks_each_layer_why_it_was_idle(tmp_path):
    """The default list has no snip: the stepper must not look for snip's settings (it once raised)."""
    compactor = Compactor(store=OutputStore(tmp_path / "store"), context_window=8_000)
    small = long_reads(3)
    stepper = PipelineStepper(compactor.passes(small), compactor=compactor)
    assert [name for name, _ in stepper.steps] == ["budget", "micro", "summary"]
    assert stepper.changed == [False, False, False]
    assert stepper.reasons == [layer.why_idle(small, compactor) for layer in compactor.layers[:3]]
    assert stepper.reasons[0].endswith("max_chars is 200,000")
    assert stepper.reasons[2].startswith("not triggered: ")


def test_steps_without_a_compactor_still_say_a_pass_changed_nothing():
    raw = session(4)
    snipped = snip_compact(raw, max_messages=5, keep_head=1)
    stepper = PipelineStepper([("input", raw), ("budget", raw), ("snip", snipped)])
    assert stepper.position == 1
    assert stepper.reasons[0].startswith("the list came out unchanged")
    stepper.go(0)
    assert "did nothing: the list came out unchanged" in stepper.label()


def test_the_stepper_buttons_move_and_the_live_body_is_the_saved_pass(compactor):
    stepper = PipelineStepper.run(compactor, long_reads())
    assert stepper.widget.children
    assert not stepper.prev_button.disabled and not stepper.next_button.disabled
    assert stepper._body.value == LIVE_STYLE + stepper.view(1)._repr_html_()
    stepper.next_button.click()
    assert stepper.next_button.disabled and stepper.position == 2
    assert "pass 3/3: micro" in stepper._label.value
    stepper.prev_button.click()
    stepper.prev_button.click()
    assert stepper.prev_button.disabled and stepper._body.value == LIVE_STYLE + stepper.pass_html(0)


def test_the_saved_stepper_holds_every_pass_and_opens_the_first_that_changed(compactor):
    stepper = PipelineStepper.run(compactor, long_reads())
    source = stepper._repr_html_()
    assert source.count("<details class='compaction-step'") == 3
    assert source.count("<details class='compaction-step' open>") == 1
    opened = source.split("<details class='compaction-step' open>", 1)[1]
    assert opened.split("</summary>", 1)[0].endswith("<b>pass 2: snip</b>")
    assert source.count("<tr class='compaction-pass'") == 3


@pytest.mark.parametrize("bad", [[], [("snip",)], [(3, [])], "snip"])
def test_malformed_steps_are_a_clear_error(bad):
    with pytest.raises(ValueError, match="steps"):
        PipelineStepper(bad)


# ---------------------------------------------------------------- one palette


def every_view(compactor) -> list:
    raw = session(12)
    snipped = snip_compact(raw, max_messages=10)
    return [
        MessageListView(micro_compact(raw, keep_recent=1, min_chars=10), window=9_000, threshold=7_000),
        BeforeAfter(raw, snipped, window=9_000, threshold=7_000),
        BeforeAfter(raw, summarized(raw)),
        WindowGauge(raw, before=snipped, window=9_000, threshold=7_000, overhead=300),
        PipelineStepper.run(compactor, long_reads()),
    ]


def test_every_colour_of_every_widget_comes_from_the_palette(compactor):
    sources = [view._repr_html_() for view in every_view(compactor)]
    used = {c.lower() for source in sources for c in HEX.findall(source)}
    assert used <= all_colors(), used - all_colors()
    assert {KINDS["tool_results"], CHANGES["changed"], CHANGES["dropped"]} <= used
    named = re.compile(
        r"(color|background|border[\w-]*):[^;']*\b(red|blue|green|yellow|white|black|gr[ae]y)\b"
    )
    assert not any(named.search(source) for source in sources)


def test_a_preview_follows_the_order_of_the_blocks():
    first = message_row(0, user(tool_result("toolu_1", "3 passed"), text("Reminder: short")), Meter(), {})
    assert first.preview.startswith("3 passed"), first.preview
    last = message_row(0, user(text("Reminder: short"), tool_result("toolu_1", "3 passed")), Meter(), {})
    assert last.preview.startswith("Reminder"), last.preview
