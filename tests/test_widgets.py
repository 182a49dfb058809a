"""The widgets: rows per message, "show more", before/after, and stepping through passes."""

from __future__ import annotations

import re

import pytest

from compaction.messages import assistant, is_tool_result_message, text, tool_result, tool_use, user
from compaction.tokens import estimate_tokens, message_tokens
from compaction.widgets import (
    BeforeAfter,
    MessageListView,
    PipelineStepper,
    block_kinds,
    describe_change,
    is_placeholder,
    message_rows,
)

ROW = re.compile(r"<div class='compaction-row[ '\w-]*")


def session(rounds: int = 3) -> list[dict]:
    """A task, then ``rounds`` read_file round trips, then a closing answer."""
    out = [user("Fix the bug in calc.py.")]
    for k in range(rounds):
        out.append(assistant(f"Reading file {k}.", tool_use(f"toolu_{k}", "read_file", {"path": f"m{k}.py"})))
        out.append(user(tool_result(f"toolu_{k}", f"def f{k}():\n" + "    return 1\n" * (10 * (k + 1)))))
    out.append(assistant("Done."))
    return out


def rows_in(html: str) -> int:
    return len(ROW.findall(html))


# ---------------------------------------------------------------- rows


def test_block_kinds_name_the_tool_behind_each_use_and_result():
    msgs = [
        user("go"),
        assistant("Running.", tool_use("toolu_1", "bash", {"command": "ls"})),
        user(tool_result("toolu_1", "no such dir", is_error=True), text("and then?")),
    ]
    rows = message_rows(msgs)
    assert [r.kinds for r in rows] == ["text", "text, tool_use:bash", "tool_result:bash!, text"]
    assert block_kinds(msgs[2]) == "tool_result:?!, text"


def test_a_row_counts_the_tokens_of_its_message():
    msgs = session()
    assert [r.tokens for r in message_rows(msgs, "tiktoken")] == [message_tokens(m, "tiktoken") for m in msgs]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[snipped 40 messages]", True),
        ("[Earlier tool result cleared: read_file a.py]", True),
        ("<persisted-output>\nsaved to tool-results/x.txt\n</persisted-output>", True),
        ("ordinary output mentioning [snipped later", False),
        ("[Old tool result cleared: read_file of a.py. Read the file again if you need its output.]", True),
        ("[snip] 12 earlier messages were removed from the middle of this conversation.", True),
    ],
)
def test_placeholders_and_persisted_markers_are_recognised(content, expected):
    msgs = [user("go"), assistant(tool_use("toolu_1", "bash", {})), user(tool_result("toolu_1", content))]
    assert is_placeholder(msgs[2]) is expected
    html = MessageListView(msgs)._repr_html_()
    assert ("compaction-placeholder" in html) is expected


def test_bars_are_proportional_to_tokens():
    msgs = session()
    html = MessageListView(msgs)._repr_html_()
    widths = [int(w) for w in re.findall(r"class='compaction-bar' style='[^']*width:(\d+)px", html)]
    biggest = max(range(len(msgs)), key=lambda i: message_tokens(msgs[i]))
    assert widths[biggest] == max(widths) == 120
    assert widths[0] < widths[2] < widths[4] < widths[6]


def test_rows_escape_html_in_previews():
    html = MessageListView([user("<script>alert(1)</script>")])._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


# ---------------------------------------------------------------- MessageListView


def test_a_short_list_shows_every_row_and_no_button():
    view = MessageListView(session(), title="demo")
    assert view.shown == 8 and rows_in(view._repr_html_()) == 8
    assert view.widget.children[-1].layout.display == "none"


def test_rows_beyond_the_limit_wait_behind_show_more():
    view = MessageListView(session(10), limit=5)  # 22 messages
    assert rows_in(view._repr_html_()) == 5
    assert "17 more messages" in view._repr_html_()
    button = view.widget.children[-1]
    assert "compaction-show-more" in button._dom_classes
    assert "compaction-msglist" in view.widget._dom_classes
    button.click()
    assert view.shown == 10 and rows_in(view.widget.children[1].value) == 10
    button.click()
    button.click()
    button.click()
    assert view.shown == 22 and button.layout.display == "none"
    assert "more messages" not in view._repr_html_()


def test_the_text_form_is_short_and_has_no_ids_or_addresses():
    view = MessageListView(session(), title="demo")
    total = estimate_tokens(session())
    assert repr(view) == f"MessageListView(demo: 8 messages, {total:,} tokens (chars), showing 8)"
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"] == repr(view)
    assert bundle["text/html"] == view._repr_html_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == view.widget.model_id


def test_the_static_form_is_the_same_every_time():
    assert MessageListView(session())._repr_html_() == MessageListView(session())._repr_html_()


@pytest.mark.parametrize(("args", "kwargs"), [(("nope",), {}), ((session(),), {"limit": 0}), ((5,), {})])
def test_a_view_of_something_else_is_a_clear_error(args, kwargs):
    with pytest.raises((TypeError, ValueError), match="messages|limit"):
        MessageListView(*args, **kwargs)


# ---------------------------------------------------------------- BeforeAfter


def cleared(msgs: list[dict]) -> list[dict]:
    """Every tool result but the last replaced by a placeholder (what micro compaction does)."""
    out, results = [], [i for i, m in enumerate(msgs) if is_tool_result_message(m)]
    for i, m in enumerate(msgs):
        if i in results[:-1]:
            use_id = m["content"][0]["tool_use_id"]
            m = user(tool_result(use_id, "[Earlier tool result cleared: read_file]"))
        out.append(m)
    return out


def test_before_after_says_what_was_replaced_and_the_tokens_saved():
    before, after = session(), cleared(session())
    t0, t1 = estimate_tokens(before), estimate_tokens(after)
    change = describe_change(before, after)
    assert change.startswith("kept 6, replaced 2, dropped 0 messages")
    assert f"tokens {t0:,} -> {t1:,} (saved {t0 - t1:,}," in change
    view = BeforeAfter(before, after)
    html = view._repr_html_()
    assert rows_in(html) == 16 and html.count("compaction-placeholder") == 2
    assert repr(view) == f"BeforeAfter({change})"


def test_before_after_draws_both_lists_on_one_scale():
    before, after = session(), session()[:2]
    view = BeforeAfter(before, after)
    biggest = max(message_tokens(m) for m in before)
    assert view.before.scale == view.after.scale == biggest
    widths = re.findall(r"class='compaction-bar' style='[^']*width:(\d+)px", view.after._repr_html_())
    assert max(int(w) for w in widths) < 120


def test_before_after_counts_dropped_and_added_messages():
    before = session(4)
    after = before[:1] + [user("[snipped 6 messages]")] + before[7:]
    assert describe_change(before, after).startswith("kept 4, replaced 1, dropped 5 messages")
    assert describe_change(before[:1], before[:3]).startswith(
        "kept 1, replaced 0, dropped 0, added 2 messages"
    )


def test_before_after_live_form_holds_both_lists():
    view = BeforeAfter(session(), cleared(session()), titles=("raw", "micro"))
    lists = view.widget.children[1].children
    assert [v.children[0].value for v in lists] == [
        f"<b>{view.before.header()}</b>",
        f"<b>{view.after.header()}</b>",
    ]
    assert view.before.header().startswith("raw: ") and view.after.header().startswith("micro: ")


# ---------------------------------------------------------------- PipelineStepper


def steps() -> tuple[list[dict], list[tuple[str, list[dict]]]]:
    raw = session(4)
    snipped = raw[:1] + [user("[snipped 2 messages]")] + raw[3:]
    return raw, [("budget", raw), ("snip", snipped), ("micro", cleared(snipped))]


def test_the_stepper_labels_each_pass_with_tokens_before_and_after():
    raw, passes = steps()
    stepper = PipelineStepper(passes, before=raw)
    tokens = [estimate_tokens(m) for _, m in passes]
    assert stepper.label() == f"pass 1/3: budget, tokens {tokens[0]:,} -> {tokens[0]:,}"
    stepper.next()
    assert stepper.label() == f"pass 2/3: snip, tokens {tokens[0]:,} -> {tokens[1]:,}"
    stepper.next()
    stepper.next()  # past the end stays at the end
    assert stepper.label() == f"pass 3/3: micro, tokens {tokens[1]:,} -> {tokens[2]:,}"
    stepper.prev()
    assert stepper.position == 1


def test_the_stepper_buttons_move_and_disable_at_the_ends():
    raw, passes = steps()
    stepper = PipelineStepper(passes, before=raw)
    widget = stepper.widget
    assert stepper.prev_button.disabled and not stepper.next_button.disabled
    stepper.next_button.click()
    assert "pass 2/3: snip" in stepper._label.value
    stepper.next_button.click()
    assert stepper.next_button.disabled and stepper.position == 2
    assert widget.children[1].children[0] is not None
    stepper.prev_button.click()
    assert stepper.position == 1 and "pass 2/3" in repr(stepper)


def test_the_stepper_shows_each_pass_against_the_list_before_it():
    raw, passes = steps()
    stepper = PipelineStepper(passes, before=raw)
    stepper.go(1)
    view = stepper.view()
    assert (view.before.title, view.after.title) == ("budget", "snip")
    assert len(view.before.rows) == len(raw) and len(view.after.rows) == len(passes[1][1])
    html = stepper._repr_html_()
    assert html.count("<tr>") == 4 and "pass 2/3: snip" in html


@pytest.mark.parametrize("bad", [[], [("snip",)], [(3, [])], "snip"])
def test_malformed_steps_are_a_clear_error(bad):
    with pytest.raises(ValueError, match="steps"):
        PipelineStepper(bad)


def test_a_first_step_named_input_is_the_list_before_the_first_pass():
    raw, passes = steps()
    stepper = PipelineStepper([("input", raw), *passes[1:]])
    assert len(stepper.steps) == 2
    assert (
        stepper.label()
        == f"pass 1/2: snip, tokens {estimate_tokens(raw):,} -> {estimate_tokens(passes[1][1]):,}"
    )
    assert stepper.view().before.title == "input"


def test_the_widgets_show_what_the_real_layers_did():
    from compaction.micro import micro_compact
    from compaction.snip import snip_compact

    raw = session(12)
    micro = micro_compact(raw, keep_recent=3, min_chars=10)
    view = BeforeAfter(raw, micro)
    replaced = sum(a != b for a, b in zip(raw, micro, strict=True))
    assert replaced > 0 and view.change.startswith(
        f"kept {len(raw) - replaced}, replaced {replaced}, dropped 0"
    )
    assert view.after._repr_html_().count("compaction-placeholder") == replaced
    snipped = snip_compact(micro, max_messages=10, keep_head=3)
    stepper = PipelineStepper([("input", raw), ("micro", micro), ("snip", snipped)])
    stepper.next()
    assert stepper.label().startswith("pass 2/2: snip,")
    assert len(stepper.view().after.rows) == len(snipped) < len(micro)
