"""ContextTexts and Answers: list after list, the shared start reused, always the answers of a fresh look.

``ContextTexts`` gives the text ``context_text`` gives; ``Answers`` the probes ``answers`` finds in
it, looking for each string only past what the last text shares with the new one.
"""

from __future__ import annotations

import copy

from conversations import sessions
from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.core.messages import user
from compaction.evaluate.probes import Answers, ContextTexts, Probe, answers, context_text, message_text
from compaction.layers.micro import micro_compact

CHANGES = st.lists(
    st.tuples(st.sampled_from(["grow", "clear", "cut", "copy", "empty", "other"]), st.integers(0, 6)),
    max_size=10,
)


@settings(max_examples=150, deadline=None)
@given(sessions(max_turns=10, huge=False), CHANGES)
def test_every_list_gets_the_text_a_fresh_join_gives(session, changes):
    texts = ContextTexts()
    for current in lists(session, changes):
        assert texts(current) == context_text(current)


def lists(session, changes):
    """The lists a run of passes might give: grown, cleared, cut, copied, emptied, unrelated."""
    current, used = [], 0
    for change, n in changes:
        if change == "grow":  # the next messages arrive
            current, used = current + session[used : used + n + 1], used + n + 1
        elif change == "clear":  # micro rewrote results in the middle
            current = micro_compact(current, keep_recent=n, min_chars=0)
        elif change == "cut" and current:  # snip or a summary: the start changes
            current = [user("summary of what was dropped")] + current[len(current) // 2 :]
        elif change == "copy":  # equal messages, other dicts
            current = copy.deepcopy(current)
        elif change == "empty":
            current = []
        else:  # a list that is not the last one's successor at all
            current = session[n : n + 3]
        yield current


WORDS = st.sampled_from(["working on it", "file", "module_1", "the", "x", "cleared", "read", "again", "ok"])
EVIDENCE = st.one_of(
    WORDS,
    st.lists(WORDS, min_size=1, max_size=3).map(lambda words: {"any": words}),
    WORDS.map(lambda word: {"regex": rf"\b{word}\b"}),
)
PROBES = st.lists(st.lists(EVIDENCE, min_size=1, max_size=3), max_size=5).map(
    lambda sets: [Probe(f"p{i}", "recall", "?", tuple(items)) for i, items in enumerate(sets)]
)


@settings(max_examples=150, deadline=None)
@given(sessions(max_turns=10, huge=False), CHANGES, PROBES)
def test_every_list_gets_the_answers_a_fresh_look_gives(session, changes, probes):
    found = Answers(probes)
    for current in lists(session, changes):
        text = context_text(current)
        assert found(current) == {p.id for p in probes if answers(text, p)}


def test_a_list_that_grew_is_joined_from_where_the_last_one_ended():
    texts, asked = ContextTexts(), []
    real = texts.text
    texts.text = lambda m: asked.append(1) or real(m)  # count the messages looked at
    base = [user(f"message {i}") for i in range(200)]
    texts(base)
    asked.clear()
    grown = base + [user("one more"), user("and another")]
    assert texts(grown) == context_text(grown) and len(asked) == 2


def test_a_message_without_text_adds_no_separator():
    messages = [
        user("a"),
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]},
        user("b"),
    ]
    assert message_text(messages[1]) == ""
    assert ContextTexts()(messages) == context_text(messages) == "a b"


def test_a_string_that_was_past_the_shared_start_is_looked_for_again():
    found = Answers([Probe("p", "recall", "?", ("the parser fails",))])
    start = [user("Fix the tests.")]
    assert found(start + [user("the parser fails on empty input")]) == {"p"}
    assert found(start + [user("all tests pass now")]) == set()  # the message that held it is gone
    assert found(start + [user("the parser fails again")]) == {"p"}


def test_a_string_across_the_end_of_the_shared_start_is_found():
    found = Answers([Probe("p", "recall", "?", ("working on it",))])
    start = [user("Still working")]
    assert found(start) == set()
    assert found(start + [user("on it")]) == {"p"}  # "working" | " " | "on it": the join makes it
