"""Chapter 08 restoration checks: pass the package and rewrites, fail stubs, reject known-wrong answers."""

from __future__ import annotations

from pathlib import Path

from check_cases import check_tests

from compaction.core.messages import text, text_of, tool_inputs, tool_names, tool_result_blocks
from compaction.course.checks import restore as checks
from compaction.layers.restore import choose_restores, restore_files


def package_restore(messages, workspace, max_files=5):
    """The package's restoration with the chapter's signature."""
    return restore_files(messages, workspace, max_files=max_files)


def _last_reads(messages):
    """path -> the read_file output the agent saw last, oldest read first."""
    calls, names, seen = tool_inputs(messages), tool_names(messages), {}
    for message in messages:
        for block in tool_result_blocks(message):
            if names[block["tool_use_id"]] == "read_file" and not block.get("is_error"):
                path = calls[block["tool_use_id"]]["path"]
                seen.pop(path, None)
                seen[path] = text_of(block["content"])
    return seen


def _numbered(workspace, path):
    lines = (Path(workspace) / path).read_text(encoding="utf-8").splitlines()
    return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(lines, 1))


def restore_minimal(messages, workspace, max_files=5):
    """Right, the chapter's way: the last read output equals the file on disk now."""
    seen, out = _last_reads(messages), []
    for path in reversed(seen):
        if not (Path(workspace) / path).is_file():
            continue
        now = _numbered(workspace, path)
        if seen[path] == now and len(out) < max_files:
            out.append(text(f"[Restored after compaction: {path}]\n{now}"))
    return out


def restore_written_differently(messages, workspace, max_files=5):
    """Right, another way: sorted by the index of each file's last read, a list comprehension."""
    seen = _last_reads(messages)
    newest_first = list(seen)[::-1]
    fresh = [p for p in newest_first if (Path(workspace) / p).exists() and seen[p] == _numbered(workspace, p)]
    return [text(f"{p} (restored)\n{_numbered(workspace, p)}") for p in fresh[:max_files]]


def restore_without_disk_check(messages, workspace, max_files=5):
    """Wrong: restores the last read output without looking at the disk."""
    seen = _last_reads(messages)
    return [text(f"[Restored: {p}]\n{seen[p]}") for p in list(reversed(seen))[:max_files]]


def restore_oldest_first(messages, workspace, max_files=5):
    """Wrong: the files read first, not most recently."""
    seen = _last_reads(messages)
    fresh = [p for p in seen if seen[p] == _numbered(workspace, p)]
    return [text(f"[Restored: {p}]\n{_numbered(workspace, p)}") for p in fresh[:max_files]]


def restore_reads_a_deleted_file(messages, workspace, max_files=5):
    """Wrong: reads every file without asking whether it is still there (FileNotFoundError)."""
    seen, out = _last_reads(messages), []
    for path in reversed(seen):
        now = _numbered(workspace, path)
        if seen[path] == now and len(out) < max_files:
            out.append(text(f"[Restored: {path}]\n{now}"))
    return out


def restore_ignores_max_files(messages, workspace, max_files=5):
    """Wrong: every unchanged file."""
    return restore_minimal(messages, workspace, max_files=10**6)


def choose_stops_at_first_too_big(sizes, max_files=5, max_total_tokens=50_000):
    """Wrong: stops at the first file that does not fit instead of trying older ones."""
    chosen, total = [], 0
    for path, tokens in sizes:
        if len(chosen) >= max_files or total + tokens > max_total_tokens:
            break
        chosen.append(path)
        total += tokens
    return chosen


def choose_strict_total(sizes, max_files=5, max_total_tokens=50_000):
    """Wrong: a file that reaches the total exactly is refused (>= instead of >)."""
    chosen, total = [], 0
    for path, tokens in sizes:
        if len(chosen) < max_files and total + tokens < max_total_tokens:
            chosen.append(path)
            total += tokens
    return chosen


def choose_counts_considered(sizes, max_files=5, max_total_tokens=50_000):
    """Wrong: max_files counts the files looked at, not the files chosen."""
    chosen, total = [], 0
    for path, tokens in sizes[:max_files]:
        if total + tokens <= max_total_tokens:
            chosen.append(path)
            total += tokens
    return chosen


def choose_smallest_first(sizes, max_files=5, max_total_tokens=50_000):
    """Wrong: fills the budget with the smallest files, whatever their age."""
    return choose_restores(
        sorted(sizes, key=lambda s: s[1]), max_files=max_files, max_total_tokens=max_total_tokens
    )


def choose_with_a_running_budget(sizes, max_files=5, max_total_tokens=50_000):
    """Right, another way: a budget that shrinks, and a filter."""
    left, chosen = max_total_tokens, []
    for path, tokens in sizes:
        if len(chosen) < max_files and tokens <= left:
            chosen.append(path)
            left -= tokens
    return chosen


CASES = [
    (
        checks.check_restore,
        package_restore,
        [
            restore_without_disk_check,
            restore_oldest_first,
            restore_ignores_max_files,
            restore_reads_a_deleted_file,
        ],
    ),
    (
        checks.check_choose_restores,
        choose_restores,
        [choose_stops_at_first_too_big, choose_strict_total, choose_counts_considered, choose_smallest_first],
    ),
]

test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_right_answers_written_differently_pass():
    assert checks.check_restore(restore_minimal).passed
    assert checks.check_restore(restore_written_differently).passed
    assert checks.check_choose_restores(choose_with_a_running_budget).passed


def test_a_restored_changed_file_is_named():
    report = checks.check_restore(restore_without_disk_check)
    assert any("changed on disk" in r.detail for r in report.failures)


def test_a_failing_choice_shows_the_sizes_and_limits_of_its_case():
    report = checks.check_choose_restores(choose_strict_total)
    exact = next(r for r in report.failures if "reaches the total exactly" in r.name)
    assert "('a.py', 600), ('b.py', 400), ('c.py', 1)" in exact.detail
    assert "max_files=5" in exact.detail and "max_total_tokens=1,000" in exact.detail
    # the row names the boundary it is about, not the general rule
    assert exact.detail.endswith("(a file that reaches the total exactly still fits (<=))")


def test_a_restore_that_trips_on_a_deleted_file_is_named():
    report = checks.check_restore(restore_reads_a_deleted_file)
    assert [r.name for r in report.failures] == [
        "never a file deleted since the agent read it (and no error)"
    ]
    assert "FileNotFoundError" in report.failures[0].detail
