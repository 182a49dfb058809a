"""Chapter 01's checks pass the package's answers and reject stubs and known-wrong answers."""

from __future__ import annotations

import pytest

from compaction.course.checks import messages as checks
from compaction.messages import blocks, is_tool_result_message, validate
from compaction.tokens import count_text, estimate_tokens, message_text, message_tokens

# ---------------------------------------------------------------- right answers, as a learner writes them


def pairing_error(messages):
    pending = []  # tool_use ids of the assistant message just before
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            pending = [b["id"] for b in blocks(message) if b["type"] == "tool_use"]
            continue
        answered, seen_other = set(), False
        for block in blocks(message):
            if block["type"] != "tool_result":
                seen_other = True
                continue
            if block["tool_use_id"] not in pending:
                return (i, "orphan_tool_result")
            if block["tool_use_id"] in answered:
                return (i, "duplicate_tool_result")
            if seen_other:
                return (i, "tool_result_not_first")
            answered.add(block["tool_use_id"])
        if set(pending) - answered:
            return (i - 1, "tool_use_unanswered")
        pending = []
    if pending:
        return (len(messages) - 1, "tool_use_unanswered")
    return None


def tool_result_share(messages, method="chars"):
    total = estimate_tokens(messages, method)
    results = sum(message_tokens(m, method) for m in messages if is_tool_result_message(m))
    return results / total if total else 0.0


def anchored_estimate(prev_usage_tokens, sent, messages, method="chars"):
    if sent and messages[: len(sent)] == sent:
        return prev_usage_tokens + estimate_tokens(messages[len(sent) :], method)
    return estimate_tokens(messages, method)


def stub(*args, **kwargs):
    raise NotImplementedError


# ---------------------------------------------------------------- known-wrong answers


def pairing_error_blames_the_user_message(messages):
    found = pairing_error(messages)
    if found and found[1] == "tool_use_unanswered":
        return (found[0] + 1, found[1])
    return found


def pairing_error_misses_text_before_results(messages):
    cleaned = [
        {**m, "content": [b for b in m["content"] if b["type"] == "tool_result"] or m["content"]}
        if is_tool_result_message(m)
        else m
        for m in messages
    ]
    return pairing_error(cleaned)


def pairing_error_from_validate_any_rule(messages):
    try:
        validate(messages)
    except Exception as exc:  # noqa: BLE001 - reports the API form's index, not validate's
        return (exc.index - 1 if exc.rule == "tool_result_not_first" else exc.index, exc.rule)
    return None


def share_by_message_count(messages, method="chars"):
    return sum(map(is_tool_result_message, messages)) / len(messages) if messages else 0.0


def share_ignoring_method(messages, method="chars"):
    return tool_result_share(messages, "chars")


def share_without_overhead(messages, method="chars"):
    total = sum(count_text(message_text(m), method) for m in messages)
    part = sum(count_text(message_text(m), method) for m in messages if is_tool_result_message(m))
    return part / total if total else 0.0


def anchored_without_prefix_check(prev_usage_tokens, sent, messages, method="chars"):
    return prev_usage_tokens + estimate_tokens(messages[len(sent) :], method)


def anchored_double_count(prev_usage_tokens, sent, messages, method="chars"):
    return prev_usage_tokens + estimate_tokens(messages, method)


def anchored_never(prev_usage_tokens, sent, messages, method="chars"):
    return estimate_tokens(messages, method)


CHECKS = {
    "pairing_error": (checks.check_pairing_error, pairing_error),
    "tool_result_share": (checks.check_tool_result_share, tool_result_share),
    "anchored_estimate": (checks.check_anchored_estimate, anchored_estimate),
}

WRONG = [
    ("pairing_error", pairing_error_blames_the_user_message),
    ("pairing_error", pairing_error_misses_text_before_results),
    ("pairing_error", pairing_error_from_validate_any_rule),
    ("tool_result_share", share_by_message_count),
    ("tool_result_share", share_ignoring_method),
    ("tool_result_share", share_without_overhead),
    ("anchored_estimate", anchored_without_prefix_check),
    ("anchored_estimate", anchored_double_count),
    ("anchored_estimate", anchored_never),
]


@pytest.mark.parametrize("name", list(CHECKS))
def test_each_check_passes_a_right_answer(name):
    check, answer = CHECKS[name]
    report = check(answer)
    assert report.passed, str(report)


@pytest.mark.parametrize("name", list(CHECKS))
def test_each_check_fails_the_untouched_stub(name):
    report = CHECKS[name][0](stub)
    assert not report.passed
    assert all(r.detail == "not implemented yet" for r in report.failures)


@pytest.mark.parametrize(("name", "wrong"), WRONG, ids=[w.__name__ for _, w in WRONG])
def test_each_check_rejects_known_wrong_answers(name, wrong):
    report = CHECKS[name][0](wrong)
    assert not report.passed, f"{wrong.__name__} passed:\n{report}"


@pytest.mark.parametrize("name", list(CHECKS))
def test_each_check_passes_the_package_reference(name):
    reference = getattr(checks, f"{name}_reference")
    assert CHECKS[name][0](reference).passed


def test_the_handmade_session_is_valid_and_every_broken_list_breaks_one_pairing_rule():
    session = checks.handmade_session()
    validate(session)
    broken = checks.broken_lists(session)
    assert all(lists for lists in broken.values())
    expected = {
        "text before results": "tool_result_not_first",
        "orphan result": "orphan_tool_result",
        "duplicate result": "duplicate_tool_result",
        "unanswered tool_use": "tool_use_unanswered",
        "unanswered at the end": "tool_use_unanswered",
    }
    for kind, lists in broken.items():
        assert {checks.pairing_error_reference(b)[1] for b in lists} == {expected[kind]}


def test_the_reference_refuses_a_list_that_is_not_a_pairing_problem():
    with pytest.raises(ValueError, match="not a pairing problem"):
        checks.pairing_error_reference([{"role": "assistant", "content": "hi"}])
