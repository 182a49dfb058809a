"""Level 1, condensing one tool output: what a condenser must keep, and how much it must cut."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction.core.messages import tool_inputs, tool_names, tool_result_blocks
from compaction.core.tokens import count_text
from compaction.course.checks.levels import sample_outputs
from compaction.levels.condense import condense, detect_kind, failing_tests, listed_paths
from compaction.levels.locations import missing_references

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


# ---------------------------------------------------------------- an independent reading of outputs
# Deliberately simpler than compaction.levels.condense: if the two disagree, one of them is wrong.


def naive_locations(text: str) -> set[tuple[str, str]]:
    """(path, line) pairs cited as ``path:123`` or ``File "path", line 123``."""
    text = re.sub(r"\w+://\S+", " ", text)
    pairs = set(re.findall(r'File "([^"]+)", line (\d+)', text))
    pairs |= set(re.findall(r"([\w./-]+\.[a-z]{1,5}):(\d+)", text))
    return pairs


def naive_failing(text: str) -> set[str]:
    """Failing test names in pytest (FAILED a::b), unittest (FAIL: x (y)) and plain (FAIL name) form."""
    names = set(re.findall(r"^FAILED (\S+::\S+)", text, re.M))
    names |= set(re.findall(r"^(?:FAIL|ERROR): (\S+ \([\w.]+\))", text, re.M))
    return names


def assert_kept(original: str, condensed: str) -> None:
    numbers = set(re.findall(r"\d+", condensed))
    expanded = set()
    for a, b in re.findall(r"(\d+)-(\d+)", condensed):
        expanded |= {str(n) for n in range(int(a), int(b) + 1)}
    for path, line in naive_locations(original):
        assert path in condensed, f"path {path} was dropped"
        assert line in numbers | expanded, f"line {line} of {path} was dropped"
    for name in naive_failing(original):
        assert name in condensed, f"failing test {name} was dropped"
    assert missing_references(original, condensed) == []


def assert_listing_kept(original: str, condensed: str) -> None:
    """A short listing keeps every name under its folder; a long one its folders and the pointer."""
    paths = [p.removeprefix("./") for p in original.split()]
    if len(paths) <= 60:
        for path in paths:
            folder, _, name = path.rpartition("/")
            assert name in condensed and (folder or ".") in condensed, f"{path} was dropped"
    else:
        assert "full output" in condensed and f"{len(paths)} entries" in condensed


def tokens(text: str) -> int:
    return count_text(text, "tiktoken")


# ---------------------------------------------------------------- real outputs


def real_grep(pattern: str = "self", folders: tuple[str, ...] = ("json", "email")) -> str:
    if shutil.which("grep") is None:
        pytest.skip("no grep on this machine")
    root = Path(sysconfig.get_paths()["stdlib"])
    run = subprocess.run(
        ["grep", "-rnI", "--include=*.py", pattern, *folders],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return "\n".join(run.stdout.splitlines()[:2000])


def real_test_run(tmp_path: Path, runner: str) -> str:
    for k in range(2):
        body = [f"import unittest\n\nclass TestPart{k}(unittest.TestCase):"]
        for i in range(300):
            expected = i + 1 if i % 101 == 7 else i
            body.append(
                f"    def test_case_{i}(self):\n        self.assertEqual({i}, {expected}, 'case {i}')\n"
            )
        (tmp_path / f"test_part{k}.py").write_text("\n".join(body))
    args = (
        ["-m", "pytest", "-v", "-p", "no:cacheprovider"] if runner == "pytest" else ["-m", "unittest", "-v"]
    )
    run = subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, text=True, check=False)
    return (run.stdout + run.stderr).replace(str(tmp_path), "suite")


def swe_agent_observations() -> list[tuple[str, str]]:
    if not DATA.is_dir():
        pytest.skip(f"the shared sessions are not here: {DATA} is absent")
    out = []
    for path in sorted((DATA / "swe-agent-trajectories").glob("*.traj")):
        for step in json.loads(path.read_text()).get("trajectory") or []:
            if step.get("observation", "").strip():
                out.append((step["action"].strip().splitlines()[0], step["observation"]))
    return out


# ---------------------------------------------------------------- choosing a condenser


@pytest.mark.parametrize(
    ("tool", "command", "kind"),
    [
        ("glob", None, "listing"),
        ("bash", "ls -la src", "listing"),
        ("bash", "grep -rn token src", "grep"),
        ("bash", "rg token", "grep"),
        ("bash", "python run_tests.py", "test_run"),
        ("bash", "python -m pytest -q", "test_run"),
    ],
)
def test_the_tool_or_the_command_picks_the_condenser(tool, command, kind):
    assert detect_kind("whatever", tool=tool, command=command) == kind


@pytest.mark.parametrize("kind", ["grep", "test_run", "log", "listing"])
def test_without_a_command_the_text_itself_picks_the_condenser(kind):
    assert detect_kind(sample_outputs()[kind][1]) == kind


def test_failing_tests_are_read_from_pytest_unittest_and_plain_runners():
    assert failing_tests("FAILED tests/t.py::test_a - AssertionError") == ["tests/t.py::test_a"]
    assert failing_tests("FAIL: test_b (pkg.TestX.test_b)\n") == ["test_b (pkg.TestX.test_b)"]
    assert failing_tests("PASS test_c\nFAIL test_d: expected 2, got 3\n") == ["test_d"]


def test_an_ls_R_listing_gives_each_entry_its_folder():
    assert listed_paths("./src:\na.py  b.py\n\n./src/x:\nc.py\n") == ["src/a.py", "src/b.py", "src/x/c.py"]


# ---------------------------------------------------------------- the promise, on real and generated outputs


@pytest.mark.parametrize("kind", ["grep", "test_run", "log"])
def test_a_generated_output_of_500_lines_keeps_every_location_and_loses_80_percent(kind):
    command, output = sample_outputs()[kind]
    assert output.count("\n") >= 499
    condensed = condense(output, command=command, saved_path=".outputs/big.txt")
    assert_kept(output, condensed)
    assert tokens(condensed) <= 0.2 * tokens(output)


@pytest.mark.parametrize(("pattern", "folders"), [("self", ("json", "email")), ("def ", ("asyncio",))])
def test_a_real_grep_of_the_standard_library_keeps_every_match_location(pattern, folders):
    output = real_grep(pattern, folders)
    assert output.count("\n") >= 499
    condensed = condense(output, command=f"grep -rnI '{pattern}' {' '.join(folders)}")
    assert_kept(output, condensed)
    assert tokens(condensed) <= 0.2 * tokens(output)


@pytest.mark.parametrize("runner", ["pytest", "unittest"])
def test_a_real_test_run_keeps_every_failing_test_and_its_error(tmp_path, runner):
    output = real_test_run(tmp_path, runner)
    assert output.count("\n") >= 499
    condensed = condense(output, command=f"python -m {runner} -v")
    assert_kept(output, condensed)
    assert len(failing_tests(output)) == 6
    for n in (7, 108, 209):
        assert f"{n} != {n + 1}" in condensed
    assert tokens(condensed) <= 0.2 * tokens(output)


def test_a_large_listing_keeps_its_folders_counts_and_key_files_and_loses_80_percent():
    command, output = sample_outputs()["listing"]
    condensed = condense(output, command=command, saved_path=".outputs/list.txt")
    assert_listing_kept(output, condensed)
    top = {p.split("/")[1] for p in output.splitlines() if p.count("/") > 1}
    assert all(f"src/{name}/" in condensed for name in sorted(top) if name) or top <= {"src"}
    for key in ("README.md", "pyproject.toml", "run_tests.py"):
        assert key in condensed
    assert "700 entries" in condensed
    assert tokens(condensed) <= 0.2 * tokens(output)


def test_the_practice_projects_own_test_run_keeps_each_failing_test_and_error(tmp_path):
    project = Path(__file__).resolve().parents[2] / "compaction" / "offline" / "project"
    if not (project / "run_tests.py").exists():
        pytest.skip("the practice project is not built yet")
    shutil.copytree(project, tmp_path / "p")
    run = subprocess.run(
        [sys.executable, "run_tests.py"], cwd=tmp_path / "p", capture_output=True, text=True, check=False
    )
    output = run.stdout
    condensed = condense(output, command="python run_tests.py")
    assert_kept(output, condensed)
    for name in re.findall(r"^FAILED (\S+)", output, re.M):
        assert name in condensed
    for error in re.findall(r"^(\w+Error: .*)$", output, re.M):
        assert error[:100] in condensed


def test_every_swe_agent_observation_keeps_its_locations():
    for action, observation in swe_agent_observations():
        assert_kept(observation, condense(observation, command=action))


def test_the_offline_agents_tool_outputs_keep_their_locations():
    agent = pytest.importorskip("compaction.agent.loop")
    pytest.importorskip("compaction.agent.backend", reason="the offline backend is not built yet")

    messages = agent.sample_session()
    inputs, names = tool_inputs(messages), tool_names(messages)
    checked = 0
    for message in messages:
        for block in tool_result_blocks(message):
            content = block["content"] if isinstance(block["content"], str) else ""
            command = inputs.get(block["tool_use_id"], {}).get("command")
            tool = names[block["tool_use_id"]]
            condensed = condense(content, tool=tool, command=command)
            if detect_kind(content, tool=tool, command=command) == "listing":
                assert_listing_kept(content, condensed)
            else:
                assert_kept(content, condensed)
            checked += 1
    assert checked > 5


_segment = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)
_paths = st.builds(
    lambda parts, ext: "/".join(parts) + "." + ext,
    st.lists(_segment, min_size=1, max_size=3),
    st.sampled_from(["py", "ts", "md", "txt"]),
)
_lines = st.one_of(
    st.builds(lambda p, n, t: f"{p}:{n}:{t}", _paths, st.integers(1, 5000), st.text(max_size=30)),
    st.builds(lambda p, n: f'  File "{p}", line {n}, in f', _paths, st.integers(1, 999)),
    st.builds(lambda p: f"FAILED {p}::test_x - AssertionError: boom", _paths),
    st.text(max_size=60),
    st.sampled_from(
        ["ERROR it broke", "WARNING low disk", "INFO ok", "12 passed, 3 failed", "Ran 4 tests", "OK"]
    ),
)


@given(st.lists(_lines, max_size=80), st.sampled_from([None, "grep -rn x .", "pytest", "cat app.log"]))
def test_any_output_keeps_every_location_it_cites(lines, command):
    output = "\n".join(lines)
    condensed = condense(output, command=command)
    if detect_kind(output, command=command) != "listing":
        assert missing_references(output, condensed) == []


# ---------------------------------------------------------------- pointers and small outputs


def test_the_condensed_output_points_to_the_saved_full_output():
    _, output = sample_outputs()["grep"]
    assert "saved at .outputs/big.txt" in condense(output, saved_path=".outputs/big.txt")


def test_without_a_saved_copy_it_says_which_command_to_re_run():
    _, output = sample_outputs()["log"]
    assert "re-run `tail -n 800 app.log`" in condense(output, command="tail -n 800 app.log")


def test_a_short_listing_keeps_every_name_under_its_folder():
    listing = "\n".join(["run_tests.py"] + [f"src/package/module_{n}.py" for n in range(12)])
    condensed = condense(listing, tool="glob")
    assert condensed != listing
    assert_listing_kept(listing, condensed)
    assert "src/package/ module_0.py module_1.py module_10.py" in condensed


def test_a_file_read_comes_back_as_it_is_however_long():
    content = "\n".join(f"{n:6}\tline {n} of src/app.py" for n in range(1, 900))
    assert condense(content, tool="read_file") == content


def test_a_short_output_comes_back_unchanged():
    assert condense("src/a.py:3:token = 1", command="grep -rn token") == "src/a.py:3:token = 1"


def test_condense_rejects_what_is_not_text_by_name():
    with pytest.raises(TypeError, match="output must be a string"):
        condense(["not", "text"])
