"""The generic plan: any task, any tools, and the offline model still calls only what it is offered.

A request whose tools are not the textstats plan's gets the generic plan (``offline.scripted.generic``):
calls of offered tools only, with inputs their schemas accept (jsonschema is the judge), one a turn,
each result read, a re-read of what the context lost, and ``end_turn`` within the bound. The textstats
plan still plays, unchanged, wherever its own tools are offered.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schemas import tool_schemas

from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import assistant, tool_result, tool_use_blocks, user
from compaction.offline.scripted import scenario
from compaction.offline.scripted.generic import MARKER_RE, MAX_CALLS, generic, plan_calls

READ = {
    "name": "read_file",
    "description": "Read a file of the user's project.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
TASK = "Read src/a.py and src/b.py, then say what they do."
FILES = {
    "src/a.py": "def add(a, b):\n    return a + b\n",
    "src/b.py": "from a import add\nprint(add(2, 3))\n",
}


def play(
    task: str, tools: list, answer=lambda call: "ok", turns: int = 3 * MAX_CALLS, scenario_name="textstats"
):
    """Play the offline model's turns with every call answered by ``answer``; the whole conversation."""
    messages = [user(task)]
    for _ in range(turns):
        content, stop = scenario.respond(scenario_name, messages, tools=tools)
        messages.append(assistant(*content))
        if stop == "end_turn":
            return messages
        assert stop == "tool_use"
        results = [tool_result(b["id"], answer(b)) for b in content if b["type"] == "tool_use"]
        messages.append(user(*results))
    raise AssertionError(f"no end_turn in {turns} turns")


def calls(messages: list) -> list[dict]:
    return [b for m in messages for b in tool_use_blocks(m)]


def test_a_user_read_file_tool_gets_the_files_the_task_names_and_an_answer_about_them():
    messages = play(TASK, [READ], answer=lambda call: FILES[call["input"]["path"]])
    assert [(c["name"], c["input"]) for c in calls(messages)] == [
        ("read_file", {"path": "src/a.py"}),
        ("read_file", {"path": "src/b.py"}),
    ]
    answer = messages[-1]["content"][0]["text"]
    assert "src/a.py (read_file): 2 lines, defines add" in answer
    assert "src/b.py (read_file): 2 lines, starting `from a import add`" in answer
    assert len(messages) == 6  # task, two calls and their results, the answer


def test_each_turn_says_what_the_last_result_showed():
    messages = play(TASK, [READ], answer=lambda call: FILES[call["input"]["path"]])
    assert messages[3]["content"][0]["text"].startswith("src/a.py: 2 lines, defines add.")


def test_an_error_result_is_read_as_an_error():
    messages = [user("Read missing.txt")]
    content, _ = generic(messages, tools=[READ])
    failed = [
        *messages,
        assistant(*content),
        user(tool_result(content[1]["id"], "no such file", is_error=True)),
    ]
    answer, stop = generic(failed, tools=[READ])
    assert stop == "end_turn" and "missing.txt (read_file): failed: no such file" in answer[0]["text"]


def test_a_result_the_context_lost_is_read_again_once_before_the_answer():
    messages = play(TASK, [READ], answer=lambda call: FILES[call["input"]["path"]])[:-1]
    first = messages[2]["content"][0]
    messages[2] = user(tool_result(first["tool_use_id"], "[tool result cleared by context management]"))
    content, stop = generic(messages, tools=[READ])
    assert stop == "tool_use" and [b["input"] for b in content if b["type"] == "tool_use"] == [
        {"path": "src/a.py"}
    ]
    assert MARKER_RE.search(content[0]["text"]).group(2) == " re-read"
    again = [*messages, assistant(*content), user(tool_result(content[1]["id"], FILES["src/a.py"]))]
    answer, stop = generic(again, tools=[READ])
    assert stop == "end_turn" and "src/a.py (read_file): 2 lines, defines add" in answer[0]["text"]


def test_the_plan_resumes_from_a_summary_that_carries_its_marker():
    summary = (
        "1. Primary Request and Intent:\nRead src/a.py and src/b.py, then say what they do.\n\n"
        "8. Current Work:\n- Calling read_file for src/a.py. [plan step 1]\n"
    )
    content, stop = generic([user(summary)], tools=[READ])
    assert stop == "tool_use" and content[1]["input"] == {"path": "src/b.py"}


def test_key_words_fill_a_tool_the_task_names_no_file_for():
    weather = {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
            "required": ["location", "unit"],
        },
    }
    (call,) = plan_calls("What is the weather in Paris?", [weather, READ])
    assert (call.tool, call.input) == ("get_weather", {"location": "Paris", "unit": "celsius"})


def test_a_task_no_tool_serves_is_answered_without_a_call():
    mail = {"name": "send_email", "description": "Send an email.", "input_schema": {"type": "object"}}
    content, stop = generic([user("Hello there")], tools=[mail])
    assert stop == "end_turn" and [b["type"] for b in content] == ["text"]


def test_the_textstats_plan_plays_only_where_its_tools_are_offered():
    first, _ = scenario.respond("textstats", [user(TASK)], tools=TOOL_DEFINITIONS)
    assert [b["name"] for b in first if b["type"] == "tool_use"] == ["glob", "glob"]
    without_glob = [t for t in TOOL_DEFINITIONS if t["name"] != "glob"]
    names = {c["name"] for c in calls(play(TASK, without_glob))}
    assert names <= {t["name"] for t in without_glob} and "glob" not in names
    renamed = [
        {**t, "input_schema": {**t["input_schema"], "additionalProperties": False}} for t in TOOL_DEFINITIONS
    ]
    assert scenario.plan_offered(renamed)
    narrowed = [
        {
            **t,
            "input_schema": {
                "type": "object",
                "properties": {"file": {"type": "string"}},
                "required": ["file"],
            },
        }
        if t["name"] == "read_file"
        else t
        for t in TOOL_DEFINITIONS
    ]
    assert not scenario.plan_offered(narrowed)  # its reads would be refused: {"path": ...} has no "file"


names = st.sampled_from(["read_file", "search", "get_weather", "list_dir", "run", "delete_item"])
tools = st.lists(
    st.builds(
        lambda n, d, s: {"name": n, "description": d, "input_schema": s},
        names,
        st.text("readfilsch ", max_size=20),
        tool_schemas,
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda t: t["name"],
)
tasks = st.lists(
    st.sampled_from(["Read", "src/a.py", "`term`", "the", "weather", "search", "list", "files", "now"]),
    max_size=8,
).map(" ".join)


@given(tasks, tools)
def test_any_task_and_tools_get_only_offered_tools_with_valid_inputs_and_an_end(task, offered):
    messages = play(task, offered, scenario_name="generic")
    by_name = {t["name"]: t for t in offered}
    for call in calls(messages):
        assert call["name"] in by_name
        assert Draft202012Validator(by_name[call["name"]]["input_schema"]).is_valid(call["input"]), call
    assert sum(m["role"] == "assistant" for m in messages) <= 2 * MAX_CALLS + 1
    assert play(task, offered, scenario_name="generic") == messages  # same request, same bytes


@given(tasks, tools)
def test_the_default_scenario_never_calls_a_tool_it_was_not_offered(task, offered):
    messages = play(task, offered)
    assert {c["name"] for c in calls(messages)} <= {t["name"] for t in offered}


def test_the_text_is_never_empty_and_every_turn_carries_a_marker():
    for message in play(TASK, [READ], answer=lambda call: FILES[call["input"]["path"]])[1::2]:
        said = message["content"][0]["text"]
        assert said.strip() and MARKER_RE.search(said)


def test_server_tools_and_anthropic_defined_tools_are_never_called_by_the_plan():
    server_tools = [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "input_schema": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
    ]
    assert plan_calls("Search the web for `compaction`, and read src/a.py", server_tools) == []
    assert [c.tool for c in plan_calls("Read src/a.py", [*server_tools, READ])] == ["read_file"]
