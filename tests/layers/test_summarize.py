"""L4 compact_history: transcript first, a structured summary, restored files, a request that fits."""

from __future__ import annotations

import copy

import pytest
from conversations import Call, Turn, build_session, sessions
from fake_summarizer import GOOD_ANSWER, FakeClient
from hypothesis import HealthCheck, given, settings

from compaction.core.messages import assistant, text_of, tool_result, tool_use, user, validate
from compaction.core.summary_prompt import summary_prompt
from compaction.core.tokens import estimate_tokens
from compaction.core.transcript import read_transcript
from compaction.layers.summarize import (
    NO_TOOLS_HEAD,
    SECTIONS,
    SUMMARY_PROMPT,
    SummaryFailed,
    compact_history,
    extract_summary,
    strip_analysis,
)
from compaction.layers.summary_request import fit_request, next_part, with_summary_prompt

# the SDK warns when the default model name nears its end of life; it does not matter offline
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

SESSION = build_session(
    [
        Turn([Call("read_file", "     1\tdef add(a, b):\n     2\t    return a - b")]),
        Turn([Call("bash", "1 failed")]),
    ],
    final="The bug is in add().",
)


def summary_of(result):
    return text_of(result[0]["content"][:1])


def test_the_prompt_forbids_tools_at_its_start_and_its_end_and_names_nine_sections():
    assert SUMMARY_PROMPT.startswith(NO_TOOLS_HEAD)
    assert "REMINDER" in SUMMARY_PROMPT.splitlines()[-1] and "tool" in SUMMARY_PROMPT.splitlines()[-1]
    for number, name in enumerate(SECTIONS, 1):
        assert f"{number}. {name}:" in SUMMARY_PROMPT
    assert "<analysis>" in SUMMARY_PROMPT and "<summary>" in SUMMARY_PROMPT


def test_a_focus_line_goes_before_the_closing_reminder():
    prompt = summary_prompt("the failing test in calc.py")
    assert prompt.startswith(NO_TOOLS_HEAD)
    assert prompt.index("the failing test in calc.py") < prompt.index("REMINDER")
    assert summary_prompt("  ") == SUMMARY_PROMPT


def test_the_transcript_is_written_first_and_holds_the_whole_list(tmp_path):
    result = compact_history(SESSION, client=FakeClient(), transcript_dir=tmp_path)
    (path,) = tmp_path.iterdir()
    assert read_transcript(path) == SESSION
    assert path.name in summary_of(result)


def test_the_result_is_one_user_message_that_says_the_session_continues(tmp_path):
    result = compact_history(SESSION, client=FakeClient(), transcript_dir=tmp_path)
    validate(result)
    assert len(result) == 1 and result[0]["role"] == "user"
    opening = summary_of(result)
    assert "continues from a summary" in opening
    assert "1. Primary Request and Intent:" in opening


def test_the_analysis_is_stripped_from_the_summary(tmp_path):
    result = compact_history(SESSION, client=FakeClient(), transcript_dir=tmp_path)
    assert "secret reasoning" not in summary_of(result) and "<analysis>" not in summary_of(result)
    assert strip_analysis("<analysis>a\nb</analysis> rest ") == "rest"
    assert extract_summary(GOOD_ANSWER).startswith("1. Primary Request")


def test_the_input_list_is_never_mutated(tmp_path):
    before = copy.deepcopy(SESSION)
    compact_history(SESSION, client=FakeClient(), transcript_dir=tmp_path, focus="tests")
    assert SESSION == before


def test_the_request_is_the_history_with_the_prompt_as_the_last_text_block(tmp_path):
    client = FakeClient()
    compact_history(SESSION[:-1], client=client, transcript_dir=tmp_path)  # ends with tool results
    sent = client.requests[0]["messages"]
    assert len(sent) == len(SESSION) - 1
    assert sent[:-1] == SESSION[:-2]
    assert sent[-1]["content"][-1]["text"].startswith(NO_TOOLS_HEAD)
    assert sent[-1]["content"][0]["type"] == "tool_result"  # results stay first


def test_after_an_assistant_reply_the_prompt_is_a_new_user_message():
    request = with_summary_prompt(SESSION)
    assert request[:-1] == SESSION and request[-1]["role"] == "user"
    validate(request)


def test_the_request_defines_tools_when_the_history_holds_tool_blocks(tmp_path):
    client = FakeClient()
    compact_history(SESSION, client=client, transcript_dir=tmp_path)
    assert {t["name"] for t in client.requests[0]["tools"]} >= {"read_file", "bash"}


def long_session(turns=30, size=600):
    plan = [Turn([Call("bash", f"output {k} " + "x" * size)], say=f"step {k}") for k in range(turns)]
    return build_session(plan, task="Refactor the parser and keep the tests green.")


def test_a_history_too_long_for_one_request_is_summarized_in_parts_each_within_the_window(tmp_path):
    messages = long_session()
    window = estimate_tokens(messages, "tiktoken") // 2
    client = FakeClient(window=window)
    result = compact_history(messages, client=client, transcript_dir=tmp_path, context_window=window)
    first, *later = [r["messages"] for r in client.requests]
    assert later, "one request cannot hold the history"
    for sent in (first, *later):
        validate(sent)
        assert estimate_tokens(sent, "tiktoken", tools=client.requests[0]["tools"]) <= window
    assert first[0]["content"] == messages[0]["content"]  # the first part opens with the task
    for sent in later:  # every later part opens with the summary so far (the fake's answer, stripped)
        assert "summary so far" in sent[0]["content"][0]["text"]
        assert sent[0]["content"][1]["text"] == extract_summary(GOOD_ANSWER)
    assert later[-1][-1]["content"][:1] == messages[-1]["content"][:1]  # the last part ends at the newest
    assert f"written in {len(later) + 1} parts" in summary_of(result)
    assert "only in the transcript" not in summary_of(result)
    assert read_transcript(next(tmp_path.iterdir())) == messages  # all of it on disk


def test_the_parts_cover_every_message_once_in_order():
    messages = long_session(turns=12)
    budget = estimate_tokens(messages, "tiktoken") // 3
    start, covered = 0, []
    while start < len(messages):
        request, after = next_part(messages, start, budget, so_far=None if not start else "so far")
        validate(request)
        assert estimate_tokens(request, "tiktoken") <= budget
        covered += list(range(start, after))
        start = after
    assert covered == list(range(len(messages)))
    with pytest.raises(ValueError, match="does not fit"):
        next_part(messages, 0, 50)


def test_fit_request_keeps_the_most_that_fits_and_never_parts_a_pair():
    messages = long_session(turns=12)
    full = estimate_tokens(with_summary_prompt(messages), "tiktoken")
    for budget in (full, full - 1, full * 2 // 3, full // 2):
        request, dropped = fit_request(messages, budget)
        validate(request)
        assert estimate_tokens(request, "tiktoken") <= budget
        assert (dropped == 0) == (budget >= full)
    with pytest.raises(ValueError, match="does not fit"):
        fit_request(messages, 50)


def test_when_the_api_still_says_too_long_the_request_is_cut_again(tmp_path):
    messages = long_session()
    window = estimate_tokens(messages, "tiktoken") // 3
    client = FakeClient(window=window)  # the caller does not know the window
    result = compact_history(messages, client=client, transcript_dir=tmp_path)
    assert len(client.requests) >= 3  # refused whole, then asked in parts
    assert "parts" in summary_of(result) and "only in the transcript" not in summary_of(result)


def test_the_transcript_path_is_shown_relative_to_the_workspace(tmp_path):
    result = compact_history(
        SESSION, client=FakeClient(), transcript_dir=tmp_path / ".transcripts", workspace=tmp_path
    )
    assert ".transcripts/transcript-0001.jsonl" in summary_of(result)
    assert str(tmp_path) not in summary_of(result)


def test_a_manual_compaction_says_it_was_asked_for(tmp_path):
    result = compact_history(SESSION, client=FakeClient(), transcript_dir=tmp_path, manual=True)
    assert "at the agent's request" in summary_of(result)


def test_an_invalid_list_is_refused_before_any_transcript_is_written(tmp_path):
    with pytest.raises(ValueError, match="roles_not_alternating"):
        compact_history([user("a"), user("b")], client=FakeClient(), transcript_dir=tmp_path / "t")
    assert not (tmp_path / "t").exists()


# ------------------------------------------------------------ file restoration


def reading_session(workspace, files, edits=()):
    """A session that reads each file (contents from disk), then applies ``edits``."""
    from compaction.agent.tools import Workspace

    ws, messages = Workspace(workspace), [user("Look at the files.")]
    for k, name in enumerate(files):
        use = tool_use(f"toolu_r{k}", "read_file", {"path": name})
        messages += [assistant(use), user(ws.run(use))]
    for k, (name, old, new) in enumerate(edits):
        use = tool_use(f"toolu_e{k}", "edit_file", {"path": name, "old_text": old, "new_text": new})
        messages += [assistant(use), user(ws.run(use))]
    return messages + [assistant("Done reading.")]


def restored_paths(result):
    return [b["text"].split("\n", 1)[0].split(": ", 1)[1].split(",")[0] for b in result[0]["content"][1:]]


def test_the_newest_read_files_are_restored_newest_first_up_to_five(tmp_path):
    for k in range(7):
        (tmp_path / f"f{k}.py").write_text(f"x = {k}\n")
    messages = reading_session(tmp_path, [f"f{k}.py" for k in range(7)])
    result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", workspace=tmp_path)
    validate(result)
    assert restored_paths(result) == ["f6.py", "f5.py", "f4.py", "f3.py", "f2.py"]
    assert "     1\tx = 6" in result[0]["content"][1]["text"]


def test_a_file_changed_since_it_was_read_is_not_restored(tmp_path):
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "b.py").write_text("b = 1\n")
    messages = reading_session(tmp_path, ["a.py", "b.py"])
    (tmp_path / "b.py").write_text("b = 2\n")  # changed behind the agent's back
    result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", workspace=tmp_path)
    assert restored_paths(result) == ["a.py"]


def test_the_agents_own_edits_count_as_seen(tmp_path):
    (tmp_path / "a.py").write_text("a = 1\n")
    messages = reading_session(tmp_path, ["a.py"], edits=[("a.py", "a = 1", "a = 3")])
    result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", workspace=tmp_path)
    assert restored_paths(result) == ["a.py"] and "a = 3" in result[0]["content"][1]["text"]


def test_a_big_file_is_cut_to_the_per_file_budget(tmp_path):
    (tmp_path / "big.py").write_text("".join(f"line_{n} = {n} * {n}\n" for n in range(4000)))
    messages = reading_session(tmp_path, ["big.py"])
    result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", workspace=tmp_path)
    restored = result[0]["content"][1]["text"]
    assert estimate_tokens([user(restored)], "tiktoken") <= 5_100
    assert "left out; read the file" in restored


def test_no_workspace_or_restore_false_restores_nothing(tmp_path):
    (tmp_path / "a.py").write_text("a = 1\n")
    messages = reading_session(tmp_path, ["a.py"])
    for kwargs in ({}, {"workspace": tmp_path, "restore": False}):
        result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", **kwargs)
        assert len(result[0]["content"]) == 1


def test_a_result_already_compacted_away_is_not_restored(tmp_path):
    (tmp_path / "a.py").write_text("a = 1\n")
    messages = [
        user("go"),
        assistant(tool_use("toolu_1", "read_file", {"path": "a.py"})),
        user(tool_result("toolu_1", "[Old tool result content cleared: read_file]")),
        assistant("ok"),
    ]
    result = compact_history(messages, client=FakeClient(), transcript_dir=tmp_path / "t", workspace=tmp_path)
    assert len(result[0]["content"]) == 1


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sessions(max_turns=6, huge=False))
def test_any_valid_session_compacts_to_a_valid_list_and_a_faithful_transcript(tmp_path_factory, messages):
    directory = tmp_path_factory.mktemp("t")
    result = compact_history(messages, client=FakeClient(), transcript_dir=directory)
    validate(result)
    (path,) = directory.iterdir()
    assert read_transcript(path) == messages


def test_summary_failed_is_one_exception_type_with_a_reason():
    error = SummaryFailed("the summary answer is empty")
    assert error.reason == "the summary answer is empty" and "empty" in str(error)


def test_when_no_cut_fits_long_outputs_are_left_out_of_the_request_but_pairs_stay(tmp_path):
    messages = build_session(
        [Turn([Call("read_file", "     1\t" + "v" * 4000)]) for _ in range(3)], task="Go."
    )
    sizes = estimate_tokens(with_summary_prompt(messages[:1]), "tiktoken")
    request, _ = fit_request(messages, sizes + 400)
    validate(request)
    assert "left out here; in the transcript" in str(request[-1]["content"][0]["content"])
    assert estimate_tokens(request, "tiktoken") <= sizes + 400


# ------------------------------------------------------------ against the offline model


@pytest.fixture(scope="module")
def course_session():
    from compaction.agent.loop import sample_session

    return sample_session(30)


def test_the_offline_model_writes_all_nine_sections_in_order(tmp_path, course_session):
    from compaction.agent.backend import connect

    result = compact_history(course_session, client=connect(), transcript_dir=tmp_path)
    validate(result)
    summary = summary_of(result)
    places = [summary.index(f"{n}. {name}:") for n, name in enumerate(SECTIONS, 1)]
    assert places == sorted(places)
    assert "<analysis>" not in summary
    assert estimate_tokens(result, "tiktoken") < estimate_tokens(course_session, "tiktoken") / 2
    assert read_transcript(next(tmp_path.iterdir())) == course_session


def test_a_history_bigger_than_the_window_is_summarized_within_it(tmp_path, course_session):
    from compaction.agent.backend import connect

    window = estimate_tokens(course_session, "tiktoken") // 2
    result = compact_history(
        course_session, client=connect(context_window=window), transcript_dir=tmp_path, context_window=window
    )
    validate(result)
    assert "summary was written in" in summary_of(result)
    assert "1. Primary Request and Intent:" in summary_of(result)


def fact_session(turns=24, size=500):
    """A session whose first result and last result each hold a fact no other message says."""
    plan = [Turn([Call("bash", "listening on port 48213\n" + "a" * size)], say="The server uses port 48213.")]
    plan += [Turn([Call("bash", f"log {k} " + "x" * size)], say=f"Checked log {k}.") for k in range(turns)]
    plan += [Turn([Call("bash", "FAILED test_codec.py::test_utf7 - KeyError: 'utf_7'\n" + "z" * size)])]
    return build_session(plan, task="Find why the codec test fails.", final="The codec table lacks utf_7.")


def test_facts_from_the_first_and_the_last_part_are_both_in_the_summary(tmp_path):
    from compaction.agent.backend import connect

    messages = fact_session()
    window = estimate_tokens(messages, "tiktoken") // 3
    result = compact_history(
        messages, client=connect(context_window=window), transcript_dir=tmp_path, context_window=window
    )
    summary = summary_of(result)
    assert "summary was written in" in summary  # it did not fit one request
    assert "48213" in summary  # said only in the first part
    assert "utf_7" in summary  # said only in the last part
    assert "Find why the codec test fails." in summary  # the task, carried through every part
