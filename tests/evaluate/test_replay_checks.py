"""Chapter 15's checks: each passes the package's answer, fails the stub, rejects known-wrong answers."""

from __future__ import annotations

import json
import re
import tempfile

from check_cases import check_tests

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.core.messages import blocks, text, tool_result, tool_use
from compaction.course.checks import replay as checks
from compaction.evaluate.probes import context_text, normalized
from compaction.evaluate.replay.turns import turn_slices
from compaction.evaluate.strategies import build
from compaction.importers import load, normalize

CALL = r"<tool_call>(.*?)</tool_call>"

# ---------------------------------------------------------------- the chapter's importer


def records(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def messages_of(rs):
    return [r for r in rs if r["type"] in ("user", "assistant")]


def merge(messages):
    out = []
    for m in messages:
        if out and out[-1]["role"] == m["role"]:
            out[-1] = {"role": m["role"], "content": out[-1]["content"] + blocks(m)}
        else:
            out.append({"role": m["role"], "content": blocks(m)})  # a prompt's text is a string
    return out


def chain_from(rs, start):
    """The messages on the chain that ends at ``start``: every record with a uuid links it."""
    by_uuid, chain = {r["uuid"]: r for r in rs if "uuid" in r}, []
    while start is not None:
        chain.append(start)
        start = by_uuid.get(start["parentUuid"])
    return messages_of(chain[::-1])


def package_importer(path):
    return load(path).messages


def importer_written_differently(path):
    rs = records(path)
    by_parent = {}
    for r in rs:
        by_parent.setdefault(r.get("parentUuid"), []).append(r)
    chain = chain_from(rs, messages_of(rs)[-1])
    return merge([r["message"] for r in chain])


def no_merge(path):
    rs = records(path)
    return [r["message"] for r in chain_from(rs, messages_of(rs)[-1])]


def no_chain(path):
    return merge([r["message"] for r in messages_of(records(path))])


def links_only_messages(path):
    """Drops the records that are not messages before linking: the chain stops at the first hook."""
    rs = messages_of(records(path))
    return merge([r["message"] for r in chain_from(rs, rs[-1])])


def first_child_from_the_first_record(path):
    rs = [r for r in records(path) if "uuid" in r]
    children = {}
    for r in rs:
        children.setdefault(r["parentUuid"], r)  # at a branch, the rewound try comes first
    chain, r = [], rs[0]
    while r is not None:
        chain.append(r)
        r = children.get(r["uuid"])
    return merge([x["message"] for x in messages_of(chain)])


# ---------------------------------------------------------------- ShareGPT


def sharegpt(data, *, keep_system=False, restart_ids=False, drop_text=False, strip=True):
    raw, count, last = [], 0, []
    for turn in data["conversations"]:
        who, value = turn["from"], turn["value"]
        if who == "human" or (who == "system" and keep_system):
            raw.append({"role": "user", "content": [text(value)]})
        elif who == "gpt":
            count = 0 if restart_ids else count
            said = re.sub(CALL, "", value, flags=re.S).strip()
            content = [text(said)] if said and not drop_text else []
            last = []
            for body in re.findall(CALL, value, re.S):
                call = json.loads(body)
                last.append(f"call_{count}")
                content.append(tool_use(f"call_{count}", call["name"], call.get("arguments", {})))
                count += 1
            raw.append({"role": "assistant", "content": content})
        elif who == "tool":
            outs = re.findall(r"<tool_response>(.*?)</tool_response>", value, re.S)
            raw.append(
                {
                    "role": "user",
                    "content": [
                        tool_result(i, o.strip() if strip else o) for i, o in zip(last, outs, strict=False)
                    ],
                }
            )
    return normalize(raw)


def sharegpt_written_differently(data):
    return sharegpt(data)


def keeps_the_system_turn(data):
    return sharegpt(data, keep_system=True)


def restarts_ids_each_turn(data):
    return sharegpt(data, restart_ids=True)


def drops_text_around_calls(data):
    return sharegpt(data, drop_text=True)


def does_not_strip_responses(data):
    return sharegpt(data, strip=False)


# ---------------------------------------------------------------- where a fact was lost

CLIENT = connect(context_window=SAMPLE_WINDOW)


def lost(session, strategy, fact, *, window, first=False, offset=1, last_pass_only=False):
    wanted, found = normalized(fact), None
    with tempfile.TemporaryDirectory() as tmp:
        compactor = build(strategy, window=window, client=CLIENT, folder=tmp)
        context = []
        for turn, (start, end) in enumerate(turn_slices(session), offset):
            passes = compactor.passes(context + session[start:end])
            pairs = [(passes[0], passes[-1])] if last_pass_only else zip(passes, passes[1:], strict=False)
            for (_, before), (name, after) in pairs:
                if wanted in context_text(before) and wanted not in context_text(after):
                    if not (first and found):
                        found = (turn, name)
            context = passes[-1][1]
    return found


def lost_at(session, strategy, fact, *, window):
    return lost(session, strategy, fact, window=window)


def first_loss(session, strategy, fact, *, window):
    return lost(session, strategy, fact, window=window, first=True)


def turns_from_zero(session, strategy, fact, *, window):
    return lost(session, strategy, fact, window=window, offset=0)


def input_against_output_only(session, strategy, fact, *, window):
    found = lost(session, strategy, fact, window=window, last_pass_only=True)
    return found and (found[0], "the strategy")


CASES = [
    (
        checks.check_claude_code_importer,
        package_importer,
        [no_merge, no_chain, links_only_messages, first_child_from_the_first_record],
    ),
    (checks.check_claude_code_importer, importer_written_differently, []),
    (
        checks.check_sharegpt_importer,
        checks.sharegpt_reference,
        [keeps_the_system_turn, restarts_ids_each_turn, drops_text_around_calls, does_not_strip_responses],
    ),
    (checks.check_sharegpt_importer, sharegpt_written_differently, []),
    (checks.check_lost_at, lost_at, [first_loss, turns_from_zero, input_against_output_only]),
]

test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_a_failing_row_names_the_message_that_differs():
    report = checks.check_claude_code_importer(no_chain)
    (row, *_) = report.failures
    assert row.name == "a rewound branch is not replayed"
    assert "message 41, block 0 (text): `text` differs" in row.detail and "expected" in row.detail


def test_a_sharegpt_row_names_message_block_and_field_not_a_json_dump():
    rows = checks.check_sharegpt_importer(does_not_strip_responses).failures
    assert rows and all("`content` differs" in r.detail and "(tool_result call_" in r.detail for r in rows)
    assert not any('{"role"' in r.detail for r in rows)


def test_ids_that_repeat_are_explained_as_renamed_not_just_shown():
    report = checks.check_sharegpt_importer(restarts_ids_each_turn)
    row = next(r for r in report.failures if r.name == "ids count over the whole conversation")
    assert "id 'call_0' repeated, so normalize renamed it 'call_0_2': ids must be unique" in row.detail
    right = checks.check_sharegpt_importer(sharegpt_written_differently)
    assert not right.failures  # the hint never shows on a correct answer


def test_an_earlier_loss_is_explained_as_not_the_last():
    report = checks.check_lost_at(first_loss)
    rows = [r for r in report.failures if "expected (" in r.detail]
    assert rows and all("give the last pass that dropped it" in r.detail for r in rows)
    assert not checks.check_lost_at(lost_at).failures


def test_turns_counted_from_zero_are_told_the_off_by_one():
    rows = [r for r in checks.check_lost_at(turns_from_zero).failures if "expected (" in r.detail]
    assert rows and all("one turn early, with the same pass" in r.detail for r in rows), rows
    assert not any("give the last pass" in r.detail for r in rows)
