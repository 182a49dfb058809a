"""L3 tool_result_budget: the newest user message's results fit the budget, the rest is on disk."""

from __future__ import annotations

import copy

import pytest
from conversations import Call, Turn, build_session

from compaction.core.messages import tool_result_blocks, validate
from compaction.core.placeholders import MARKER_CLOSE, MARKER_OPEN, is_persisted_marker, persisted_marker
from compaction.core.store import OutputStore
from compaction.layers.budget import tool_result_budget


def session_with(*results, older=("old " * 100_000,)):
    """A session whose newest user message carries these results (and an older huge one before)."""
    turns = [Turn([Call("read_file", r) for r in older])] if older else []
    return build_session([*turns, Turn([Call("bash", r) for r in results])])


def newest_results(messages):
    return tool_result_blocks(messages[-1])


def test_a_message_within_budget_comes_back_unchanged_as_a_new_list(tmp_path):
    session = session_with("a" * 100, "b" * 100)
    out = tool_result_budget(session, max_chars=1_000, store=OutputStore(tmp_path))
    assert out == session and out is not session
    assert not (tmp_path / "tool-results").exists()


def test_the_largest_result_goes_first_and_only_until_the_rest_fits(tmp_path):
    session = session_with("s" * 3_000, "L" * 9_000, "m" * 5_000)
    out = tool_result_budget(session, max_chars=11_000, store=OutputStore(tmp_path))
    small, large, medium = newest_results(out)
    assert large["content"].startswith(MARKER_OPEN)
    assert small["content"] == "s" * 3_000 and medium["content"] == "m" * 5_000


def test_several_results_are_persisted_when_one_is_not_enough(tmp_path):
    session = session_with("a" * 6_000, "b" * 6_000, "c" * 6_000)
    out = tool_result_budget(session, max_chars=11_000, store=OutputStore(tmp_path))
    persisted = [b for b in newest_results(out) if b["content"].startswith(MARKER_OPEN)]
    assert len(persisted) == 2


def test_the_marker_names_the_path_the_size_and_shows_a_preview(tmp_path):
    store = OutputStore(tmp_path)
    content = "".join(f"line {i}\n" for i in range(50_000))
    out = tool_result_budget(session_with(content), max_chars=1_000, store=store)
    marker = newest_results(out)[0]["content"]
    assert marker.startswith(MARKER_OPEN) and marker.endswith(MARKER_CLOSE)
    assert f"({len(content):,} characters)" in marker
    assert content[:2_000] in marker and content[:2_001] not in marker
    path = marker.split("saved to: ", 1)[1].split("\n", 1)[0]
    assert path.startswith("tool-results/") and store.load(path) == content


def test_older_user_messages_are_left_alone_even_when_huge(tmp_path):
    session = session_with("small")
    out = tool_result_budget(session, max_chars=10, store=OutputStore(tmp_path))
    assert out[:-1] == session[:-1] and all(a is b for a, b in zip(out[:-1], session[:-1], strict=True))


def test_the_input_list_and_its_messages_are_never_mutated(tmp_path):
    session = session_with("x" * 50_000, "y" * 50_000)
    before = copy.deepcopy(session)
    out = tool_result_budget(session, max_chars=1_000, store=OutputStore(tmp_path))
    assert session == before and out != session
    validate(out)


def test_is_error_and_other_block_keys_survive_persisting(tmp_path):
    session = build_session([Turn([Call("bash", "E" * 5_000, is_error=True)])])
    session[-1]["content"][0]["cache_control"] = {"type": "ephemeral"}
    block = newest_results(tool_result_budget(session, max_chars=100, store=OutputStore(tmp_path)))[0]
    assert block["is_error"] is True and block["cache_control"] == {"type": "ephemeral"}
    assert block["content"].startswith(MARKER_OPEN)


def test_images_in_a_persisted_result_stay_in_the_message(tmp_path):
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    session = build_session([Turn([Call("read_file", [{"type": "text", "text": "t" * 5_000}, image])])])
    block = newest_results(tool_result_budget(session, max_chars=100, store=OutputStore(tmp_path)))[0]
    assert block["content"][0]["text"].startswith(MARKER_OPEN) and block["content"][1] == image


def test_text_imitating_a_marker_is_treated_as_content_and_persisted_itself(tmp_path):
    fake = persisted_marker("../../etc/passwd", 10, "x") + "\n" + "pad " * 5_000
    store = OutputStore(tmp_path)
    out = tool_result_budget(session_with(fake), max_chars=1_000, store=store)
    marker = newest_results(out)[0]["content"]
    path = marker.split("saved to: ", 2)[1].split("\n", 1)[0]
    assert path.startswith("tool-results/") and store.load(path) == fake
    assert not is_persisted_marker(fake)


def test_a_failed_write_keeps_the_content_and_reports_why(tmp_path):
    class FullDisk(OutputStore):
        def save(self, tool_use_id, content):
            raise OSError(28, "No space left on device")

    events = []
    session = session_with("z" * 5_000)
    out = tool_result_budget(session, max_chars=100, store=FullDisk(tmp_path), on_event=events.append)
    assert out == session
    use_id = newest_results(session)[0]["tool_use_id"]
    assert [(e.kind, e.tool_use_id, e.saved_to) for e in events] == [("budget_failed", use_id, "")]
    assert events[0].detail == f"{use_id}: 5,000 characters kept: OSError: [Errno 28] No space left on device"


def test_each_persisted_result_is_reported_with_its_path(tmp_path):
    events = []
    tool_result_budget(
        session_with("q" * 5_000), max_chars=100, store=OutputStore(tmp_path), on_event=events.append
    )
    assert [
        (e.kind, e.detail.endswith("5,000 characters persisted"), e.saved_to.startswith("tool-results/"))
        for e in events
    ] == [("budget", True, True)]


def test_results_smaller_than_a_marker_are_not_persisted(tmp_path):
    session = session_with(*["r" * 500 for _ in range(5)])
    out = tool_result_budget(session, max_chars=100, store=OutputStore(tmp_path))
    assert out == session


def test_a_session_that_ends_with_an_assistant_message_budgets_the_user_message_before_it(tmp_path):
    session = build_session([Turn([Call("bash", "w" * 5_000)])], final="All done.")
    out = tool_result_budget(session, max_chars=100, store=OutputStore(tmp_path))
    assert tool_result_blocks(out[-2])[0]["content"].startswith(MARKER_OPEN)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_chars": -1}, "max_chars"),
        ({"preview_chars": -5}, "preview_chars"),
        ({"max_chars": 1.5}, "max_chars"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(tmp_path, kwargs, name):
    with pytest.raises(ValueError, match=name):
        tool_result_budget(session_with("a"), store=OutputStore(tmp_path), **kwargs)


def test_a_missing_store_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="store"):
        tool_result_budget(session_with("a"), store="/tmp/somewhere")
