"""Chapter 17's checks pass right answers, fail the stubs, and reject known-wrong answers."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from check_cases import check_tests

from compaction.core.messages import assistant, blocks, text_of, tool_inputs, tool_names
from compaction.core.used import used_lines
from compaction.course.checks import keep_used as checks
from compaction.layers.ledger import ledger_text

# ---------------------------------------------------------------- right answers, written differently


def package_ledger(messages, max_entries=40):
    """The package's ledger, its token bound standing in for the entry bound."""
    return ledger_text(messages, max_tokens=500)


SPECIFIC = re.compile(r"[\w./-]*[_./][\w./-]*\w|\d\d+(?:\.\d+)?|'[^'\n]{3,80}'|\"[^\"\n]{3,80}\"")


def words_said(messages):
    said = set()
    for m in messages:
        if m["role"] == "assistant":
            for b in blocks(m):
                said |= set(
                    SPECIFIC.findall(
                        b.get("text", "") + " " + " ".join(map(str, (b.get("input") or {}).values()))
                    )
                )
    return said


def used_lines_by_regex(result_text, later_messages, max_lines=2):
    said = words_said(later_messages)
    return [line for line in result_text.splitlines() if set(SPECIFIC.findall(line)) & said][:max_lines]


def entry_with_slashes(command, output):
    """Another format: `cmd: P/F (passed/failed), exit N`, counts read right to left."""
    passed = failed = 0
    for line in output.splitlines():
        p = re.search(r"(\d+) passed", line)
        f = re.search(r"(\d+) failed", line)
        if p or f:
            passed, failed = int(p.group(1)) if p else 0, int(f.group(1)) if f else 0
    code = re.search(r"\[exit code (\d+)\]", output)
    tail = f", exit status {code.group(1)}" if code else ""
    return f"{command}: {passed} passed and {failed} failed{tail}"


def reformatted_by_floats(result_text, later_messages, max_lines=2):
    said = []
    for m in later_messages:
        if m["role"] == "assistant":
            for b in blocks(m):
                said += re.findall(r"\d[\d,]*(?:\.\d+)?", b.get("text", ""))
    kept = []
    for line in result_text.splitlines():
        hit = bool(used_lines(line, later_messages))
        for n in re.findall(r"\d[\d,]*(?:\.\d+)?", line):
            value = n.replace(",", "")
            if len(value.split(".")[0]) < 2 and "." not in value:
                continue
            for s in said:
                s = s.replace(",", "").rstrip(".")
                if len(s) < 2:  # one digit marks nothing, the agent's `[step 4]` among them
                    continue
                places = len(s.split(".")[1]) if "." in s else 0
                if (
                    places <= len(value.split(".")[1] if "." in value else "")
                    and f"{float(value) + 1e-9:.{places}f}" == f"{float(s):.{places}f}"
                ):
                    hit = True
        if hit:
            kept.append(line)
    return kept[:max_lines]


# ---------------------------------------------------------------- known-wrong answers


def used_by_any_word(result_text, later_messages, max_lines=2):
    said = " ".join(b.get("text", "") for m in later_messages for b in blocks(m))
    return [line for line in result_text.splitlines() if any(w in said for w in line.split())][:max_lines]


def used_unbounded(result_text, later_messages, max_lines=2):
    return used_lines(result_text, later_messages, max_lines=99, max_chars=10_000)


def used_reading_user_messages_too(result_text, later_messages, max_lines=2):
    as_assistant = [{**m, "role": "assistant"} for m in later_messages]
    return used_lines(result_text, as_assistant, max_lines=max_lines)


def ledger_files_only(messages, max_entries=40):
    return "\n".join(line for line in package_ledger(messages).splitlines() if "run_tests" not in line)


def ledger_newest_only(messages, max_entries=40):
    """Every call's line, then only the newest ``max_entries``: the chapter's first, naive bound."""
    names, inputs = tool_names(messages), tool_inputs(messages)
    lines = []
    for m in messages:
        for b in blocks(m):
            if b.get("type") == "text" and "- " in b["text"]:
                lines += [ln for ln in b["text"].splitlines() if ln.startswith("- ")]
            if b.get("type") == "tool_result":
                args = inputs[b["tool_use_id"]]
                out = text_of(b["content"])
                error = next((ln for ln in out.splitlines() if "Error" in ln), "")
                lines.append(f"- {names[b['tool_use_id']]} {' '.join(map(str, args.values()))} {error}")
    return "\n".join(lines[-max_entries:])


def ledger_not_carried(messages, max_entries=40):
    fresh = [m for m in messages if not any("[State ledger" in b.get("text", "") for b in blocks(m))]
    return package_ledger(fresh)


def entry_first_count_line(command, output):
    line = next((ln for ln in output.splitlines() if checks.COUNT.search(ln)), "")
    counts = dict((k, n) for n, k in checks.COUNT.findall(line))
    code = re.findall(r"\[exit code (\d+)\]", output)
    passed, failed = counts.get("passed", 0), counts.get("failed", 0)
    return f"{command} exit {code[-1] if code else '?'}: {passed} passed, {failed} failed"


def entry_numbers_by_position(command, output):
    line = next((ln for ln in reversed(output.splitlines()) if checks.COUNT.search(ln)), "")
    numbers = re.findall(r"\d+", line)
    code = re.findall(r"\[exit code (\d+)\]", output)
    second = numbers[1] if len(numbers) > 1 else 0
    return f"{command} exit {code[-1] if code else '?'}: {numbers[0]} passed, {second} failed"


def entry_without_zero_failed(command, output):
    entry = checks.counts_entry_reference(command, output)
    return entry.replace(", 0 failed", "")


def entry_echoing_every_count_line(command, output):
    """The right counts, and the progress lines' counts before them."""
    counted = [ln.strip() for ln in output.splitlines() if checks.COUNT.search(ln)]
    return f"- `{command}`: " + " | ".join(counted)


def reformatted_commas_only(result_text, later_messages, max_lines=2):
    said = " ".join(b.get("text", "") for m in later_messages for b in blocks(m)).replace(",", "")
    kept = [
        ln
        for ln in result_text.splitlines()
        if used_lines(ln, later_messages)
        or any(
            n.replace(",", "") in said.split() or n.replace(",", "") + "." in said.split()
            for n in re.findall(r"\d[\d,]+", ln)
        )
    ]
    return kept[:max_lines]


def reformatted_cut_not_rounded(result_text, later_messages, max_lines=2):
    said = re.findall(
        r"\d[\d,]*(?:\.\d+)?", " ".join(b.get("text", "") for m in later_messages for b in blocks(m))
    )
    kept = []
    for line in result_text.splitlines():
        for n in re.findall(r"\d[\d,]*(?:\.\d+)?", line):
            n = n.replace(",", "")
            if any(n.startswith(s.replace(",", "")) and len(n) >= 2 for s in said):
                kept.append(line)
                break
        else:
            if used_lines(line, later_messages):
                kept.append(line)
    return kept[:max_lines]


def reformatted_substring(result_text, later_messages, max_lines=2):
    said = " ".join(b.get("text", "") for m in later_messages for b in blocks(m)).replace(",", "")
    return [
        ln
        for ln in result_text.splitlines()
        if any(
            n.replace(",", "") in said or said.find(n.replace(",", "")[:2]) >= 0
            for n in re.findall(r"\d[\d,.]+", ln)
        )
        or used_lines(ln, later_messages)
    ][:max_lines]


def reformatted_any_digit_said(result_text, later_messages, max_lines=2):
    """The rounding rule, but a one-digit number the agent wrote (`[step 4]`) marks `3.674` too."""
    said = [
        Decimal(n)
        for m in later_messages
        if m["role"] == "assistant"
        for b in blocks(m)
        for n in re.findall(r"\d+(?:\.\d+)?", b.get("text", "").replace(",", ""))
    ]
    kept = []
    for line in result_text.splitlines():
        found = [Decimal(n) for n in re.findall(r"\d+(?:\.\d+)?", line.replace(",", "")) if len(n) >= 2]
        if used_lines(line, later_messages) or any(
            f == s or f.quantize(Decimal(1).scaleb(s.as_tuple().exponent), ROUND_HALF_UP) == s
            for f in found
            for s in said
            if s.as_tuple().exponent >= f.as_tuple().exponent
        ):
            kept.append(line)
    return kept[:max_lines]


def reformatted_unbounded(result_text, later_messages, max_lines=2):
    return checks.used_lines_reformatted_reference(result_text, later_messages, max_lines=99)


def reformatted_said_order(result_text, later_messages, max_lines=2):
    """Walks the numbers the agent said, and keeps each line that matches one: in the agent's order."""
    lines = result_text.splitlines()
    words = " ".join(b.get("text", "") for m in later_messages if m["role"] == "assistant" for b in blocks(m))
    kept = []
    for said in re.findall(r"\d[\d,]*(?:\.\d+)?", words):
        kept += [
            ln
            for ln in lines
            if ln not in kept and checks.used_lines_reformatted_reference(ln, [assistant(said)])
        ]
    return kept[:max_lines]


def reformatted_reads_user_messages(result_text, later_messages, max_lines=2):
    as_assistant = [{**m, "role": "assistant"} for m in later_messages]
    return checks.used_lines_reformatted_reference(result_text, as_assistant, max_lines)


CASES = [
    (checks.check_used_lines, used_lines, [used_by_any_word, used_unbounded, used_reading_user_messages_too]),
    (checks.check_ledger, package_ledger, [ledger_files_only, ledger_newest_only, ledger_not_carried]),
    (
        checks.check_counts_entry,
        checks.counts_entry_reference,
        [
            entry_first_count_line,
            entry_numbers_by_position,
            entry_without_zero_failed,
            entry_echoing_every_count_line,
        ],
    ),
    (
        checks.check_used_lines_reformatted,
        checks.used_lines_reformatted_reference,
        [
            reformatted_commas_only,
            reformatted_cut_not_rounded,
            reformatted_substring,
            reformatted_any_digit_said,
            reformatted_unbounded,
            reformatted_said_order,
            reformatted_reads_user_messages,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_right_answers_written_differently_pass():
    for check, answer in [
        (checks.check_used_lines, used_lines_by_regex),
        (checks.check_counts_entry, entry_with_slashes),
        (checks.check_used_lines_reformatted, reformatted_by_floats),
    ]:
        report = check(answer)
        assert report.passed, str(report)


@pytest.mark.parametrize(
    ("check", "wrong", "row", "rule"),
    [
        (
            checks.check_counts_entry,
            entry_echoing_every_count_line,
            "the last summary line wins",
            "the right count",
        ),
        (
            checks.check_used_lines_reformatted,
            reformatted_any_digit_said,
            "a one-digit number said marks nothing",
            "one digit marks nothing",
        ),
        (
            checks.check_used_lines_reformatted,
            reformatted_unbounded,
            "at most max_lines lines",
            "max_lines=2",
        ),
        (
            checks.check_used_lines_reformatted,
            reformatted_said_order,
            "lines in the result's order",
            "out of the result's order",
        ),
        (
            checks.check_used_lines_reformatted,
            reformatted_reads_user_messages,
            "the user's numbers do not count",
            "only the assistant's texts",
        ),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_a_new_case_rejects_its_wrong_answer_by_name(check, wrong, row, rule):
    failed = {r.name: r.detail for r in check(wrong).failures}
    assert row in failed, f"{wrong.__name__} passed the row {row!r}: {failed}"
    assert rule in failed[row], failed[row]
