"""A session stored as one JSON document is streamed: parsed objects only, keys no importer reads skipped."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from compaction.importers import NotASession, load
from compaction.importers.document import KEPT, read_document


def traj(steps: int, body: str) -> dict:
    """A SWE-agent .traj: ``trajectory`` repeats every observation that ``history`` holds."""
    history = [{"role": "system", "content": "SETTING"}, {"role": "user", "content": "fix it"}]
    trajectory = []
    for i in range(steps):
        history += [
            {"role": "assistant", "content": f"step {i}", "action": f"cat f{i}.py"},
            {"role": "user", "content": f"{i} {body}"},
        ]
        trajectory.append({"action": f"cat f{i}.py", "observation": f"{i} {body}", "thought": f"step {i}"})
    return {"environment": "main", "trajectory": trajectory, "history": history, "info": {"exit": "ok"}}


@pytest.mark.parametrize("indent", [None, 2], ids=["one line", "pretty-printed"])
def test_a_streamed_document_gives_what_json_load_gives_for_the_keys_importers_read(tmp_path, indent):
    data = traj(5, "x" * 50)
    path = tmp_path / "t.traj"
    path.write_text(json.dumps(data, indent=indent))
    streamed = read_document(path)
    assert {k: v for k, v in streamed.items() if k in KEPT} == {k: data[k] for k in ("history", "info")}
    assert streamed["trajectory"] is None and streamed["environment"] is None  # named, never built
    assert load(path).messages == load(path, "swe-agent").messages


def test_a_list_document_streams_its_items(tmp_path):
    chat = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "yo"}]},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat, indent=1))
    assert read_document(path) == chat
    assert [(m["role"], m["content"][0]["text"]) for m in load(path).messages] == [
        ("user", "hi"),
        ("assistant", "yo"),
    ]


@pytest.mark.parametrize(
    "text, line",
    [('{\n  "history": [\n    {"role": "user",\n  ]\n}', 4), ('[\n {"role": "user", "content": "a"},\n', 3)],
    ids=["bad token", "truncated"],
)
def test_a_broken_document_is_named_with_the_line_where_it_breaks(tmp_path, text, line):
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(NotASession) as caught:
        load(path)
    assert "broken.json" in str(caught.value) and f"line {line}" in str(caught.value)
    assert path.read_text() == text  # the input is never written


def test_a_document_with_a_byte_order_mark_still_loads(tmp_path):
    path = tmp_path / "bom.traj"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(traj(2, "y")).encode())
    assert len(load(path).messages) == 5


def peak_while(read) -> int:
    """Peak traced memory, in bytes, while ``read()`` runs (what it returns is kept until the end)."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = read()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del kept
    return peak


def test_a_large_document_is_never_held_as_text_and_parsed_objects_at_once(tmp_path):
    """A 4 MB .traj: ``json.load`` alone peaks above 3x its history; the whole streamed import below."""
    data = traj(400, "z" * 5_000)
    path = tmp_path / "big.traj"
    path.write_text(json.dumps(data))
    history = len(json.dumps(data["history"]))  # bytes of what the import keeps
    del data

    def whole():
        with open(path) as f:
            return json.load(f)

    assert peak_while(whole) > 3 * history  # the control: text and objects at once, trajectory built too
    assert len(load(path).messages) == 801
    peak = peak_while(lambda: load(path))
    assert peak < 3 * history, f"the import peaked at {peak:,} bytes for a history of {history:,}"
