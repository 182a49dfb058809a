"""OutputStore: what leaves the context is on disk, byte for byte, and never outside its root."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from conversations import chars, hostile_ids
from hypothesis import given
from hypothesis import strategies as st

from compaction.core.messages import text_of
from compaction.core.store import RESULTS_DIR, OutputStore, StoreError, UnsafePath, safe_name


def test_a_saved_result_reads_back_by_path_by_marker_path_and_by_id(tmp_path):
    store = OutputStore(tmp_path)
    path = store.save("toolu_01", "hello\r\nworld")
    assert path.parent == tmp_path / RESULTS_DIR
    assert store.load(path) == store.load(store.display(path)) == store.load("toolu_01") == "hello\r\nworld"


def test_marker_paths_are_relative_to_the_base_with_forward_slashes(tmp_path):
    store = OutputStore(tmp_path / ".task_outputs", base=tmp_path)
    shown = store.display(store.save("toolu_01", "x"))
    assert shown.startswith(".task_outputs/tool-results/toolu_01-") and "\\" not in shown
    assert store.load(shown) == "x"


@given(st.text(chars, max_size=2_000))
def test_any_unicode_comes_back_byte_for_byte(content):
    with tempfile.TemporaryDirectory() as root:
        store = OutputStore(root)
        path = store.save("toolu_x", content)
        assert store.load(path) == content
        assert path.read_bytes() == content.encode("utf-8")


def test_even_a_lone_surrogate_survives_the_round_trip(tmp_path):
    store = OutputStore(tmp_path)
    assert store.load(store.save("t", "a\ud800b")) == "a\ud800b"


def test_list_content_is_stored_as_its_text_blocks_joined_by_newlines_without_images(tmp_path):
    content = [
        {"type": "text", "text": "one"},
        {"type": "image", "source": {}},
        {"type": "text", "text": "two"},
    ]
    store = OutputStore(tmp_path)
    assert store.load(store.save("t", content)) == "one\ntwo" == text_of(content)


@given(hostile_ids)
def test_hostile_ids_stay_inside_the_results_folder(tool_use_id):
    with tempfile.TemporaryDirectory() as root:
        store = OutputStore(root)
        path = store.save(tool_use_id, "payload")
        assert path.parent == Path(root).absolute() / RESULTS_DIR
        assert len(path.name) <= 80 and path.name.endswith(".txt")
        assert sorted(os.listdir(root)) == [RESULTS_DIR]
        assert store.load(tool_use_id) == "payload"


@pytest.mark.parametrize("reserved", ["CON", "con", "PRN", "AUX", "NUL", "COM1", "LPT1"])
def test_names_windows_reserves_never_become_a_bare_file_name(reserved):
    stem = safe_name(reserved).rsplit(".", 1)[0]
    assert stem.upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT1"}


@given(st.lists(hostile_ids, min_size=2, max_size=6, unique=True))
def test_different_ids_never_share_a_file(ids):
    assert len({safe_name(i) for i in ids}) == len(ids)


def test_ids_that_sanitize_alike_keep_their_own_results(tmp_path):
    store = OutputStore(tmp_path)
    for i, tool_use_id in enumerate(["a/b", "a\\b", "a_b", "a?b", "a\x00b"]):
        store.save(tool_use_id, f"result {i}")
    for i, tool_use_id in enumerate(["a/b", "a\\b", "a_b", "a?b", "a\x00b"]):
        assert store.load(tool_use_id) == f"result {i}"


def test_saving_the_same_id_again_replaces_its_file_and_leaves_no_temp_file(tmp_path):
    store = OutputStore(tmp_path)
    store.save("t", "first")
    path = store.save("t", "second")
    assert store.load(path) == "second"
    assert os.listdir(tmp_path / RESULTS_DIR) == [path.name]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    store = OutputStore(tmp_path)
    path = store.save("t", "old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        store.save("t", "new")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path / RESULTS_DIR) == [path.name]


def test_the_store_refuses_a_root_that_is_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "root").symlink_to(outside)
    with pytest.raises(UnsafePath, match="symlink"):
        OutputStore(tmp_path / "root").save("t", "x")
    assert list(outside.iterdir()) == []


def test_the_store_refuses_a_results_folder_that_is_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / RESULTS_DIR).symlink_to(outside)
    with pytest.raises(UnsafePath):
        OutputStore(tmp_path / "root").save("t", "x")
    assert list(outside.iterdir()) == []


def test_a_symlink_planted_at_the_target_name_is_neither_written_nor_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not touch")
    store = OutputStore(tmp_path / "root")
    store.results.mkdir(parents=True)
    store.path_for("t").symlink_to(secret)
    with pytest.raises(UnsafePath):
        store.save("t", "overwrite attempt")
    with pytest.raises(UnsafePath):
        store.load("t")
    assert secret.read_text() == "do not touch"


@pytest.mark.parametrize(
    "path", ["../secret.txt", "/etc/passwd", "tool-results/../../secret.txt", "secret.txt"]
)
def test_load_refuses_paths_outside_the_results_folder(tmp_path, path):
    (tmp_path / "secret.txt").write_text("s")
    store = OutputStore(tmp_path / "root")
    store.save("t", "x")
    with pytest.raises(StoreError):
        store.load(path)


def test_errors_are_oserrors_with_a_clear_message(tmp_path):
    with pytest.raises(OSError, match="no stored result for 'missing'"):
        OutputStore(tmp_path).load("missing")


def test_a_non_string_id_or_content_is_a_type_error_naming_it(tmp_path):
    with pytest.raises(TypeError, match="tool_use_id"):
        OutputStore(tmp_path).save(42, "x")
    with pytest.raises(TypeError, match="content"):
        OutputStore(tmp_path).save("t", {"not": "content"})
