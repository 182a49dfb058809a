"""Chapter 02's checks pass right answers and reject stubs and known-wrong answers."""

from __future__ import annotations

import hashlib
import re

from compaction.course.checks import budget as checks
from compaction.store import safe_name

# ---------------------------------------------------------------- right answers, as a learner writes them


def learner_safe_name(tool_use_id):
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", tool_use_id)[:40].strip("_") or "id"
    return f"{stem}-{hashlib.sha256(tool_use_id.encode('utf-8', 'surrogatepass')).hexdigest()[:20]}.txt"


def persist_largest_first(sizes, max_chars, marker_chars=2_400):
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        if total <= max_chars or sizes[i] <= marker_chars:
            break
        chosen.append(i)
        total += marker_chars - sizes[i]
    return chosen


def stub(*args, **kwargs):
    raise NotImplementedError


# ---------------------------------------------------------------- known-wrong answers


def name_by_replacing_slashes(tool_use_id):
    return tool_use_id.replace("/", "_") + ".txt"


def name_without_hash(tool_use_id):
    return (re.sub(r"[^A-Za-z0-9_-]+", "_", tool_use_id)[:40] or "id") + ".txt"


def name_by_hash_only(tool_use_id):
    return hashlib.sha256(tool_use_id.encode("utf-8", "surrogatepass")).hexdigest() + ".txt"


def persist_before_checking_the_size(sizes, max_chars, marker_chars=2_400):
    return sorted(range(len(sizes)), key=lambda k: (-sizes[k], k))


def persist_smallest_first(sizes, max_chars, marker_chars=2_400):
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda k: (sizes[k], k)):
        if total <= max_chars:
            break
        chosen.append(i)
        total += marker_chars - sizes[i]
    return chosen


def persist_forgetting_the_marker(sizes, max_chars, marker_chars=2_400):
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        if total <= max_chars:
            break
        chosen.append(i)
        total -= sizes[i]
    return chosen


def test_the_package_and_a_learner_s_safe_name_pass():
    assert checks.check_safe_name(safe_name).passed
    assert checks.check_safe_name(learner_safe_name).passed


def test_safe_name_fails_on_a_stub():
    report = checks.check_safe_name(stub)
    assert not report.passed and all(r.detail == "not implemented yet" for r in report.failures)


def test_safe_name_rejects_names_that_collide_or_escape_or_hide_the_id():
    assert not checks.check_safe_name(name_by_replacing_slashes).passed
    assert not checks.check_safe_name(name_without_hash).passed
    assert not checks.check_safe_name(name_by_hash_only).passed


def test_persist_largest_first_passes_the_reference_answer():
    report = checks.check_persist_largest_first(persist_largest_first)
    assert report.passed, str(report)


def test_persist_largest_first_fails_on_a_stub():
    assert not checks.check_persist_largest_first(stub).passed


def test_persist_largest_first_rejects_persisting_before_checking_the_size():
    report = checks.check_persist_largest_first(persist_before_checking_the_size)
    assert "within budget: nothing" in {r.name for r in report.failures}


def test_persist_largest_first_rejects_the_wrong_order_and_a_forgotten_marker():
    assert not checks.check_persist_largest_first(persist_smallest_first).passed
    assert not checks.check_persist_largest_first(persist_forgetting_the_marker).passed
