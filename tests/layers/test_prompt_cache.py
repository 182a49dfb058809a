"""Prompt-cache breaks: appending keeps the cache, changing an earlier message breaks it there."""

from __future__ import annotations

from compaction.core.messages import assistant, shared_prefix, user
from compaction.layers.prompt_cache import cache_breaks, resent_tokens


def grown(n: int) -> list[dict]:
    messages = [user("task")]
    for i in range(n):
        messages += [assistant(f"step {i}"), user(f"result {i}")]
    return messages


def test_a_session_that_only_appends_never_breaks_the_cache():
    requests = [grown(n) for n in range(6)]
    assert cache_breaks(requests) == []
    assert resent_tokens(requests) == 0


def test_changing_an_earlier_message_breaks_the_cache_from_that_message():
    first, second = grown(3), grown(4)
    second[2] = user("[cleared]")
    assert shared_prefix(first, second) == 2
    assert cache_breaks([first, second]) == [(1, 2)]


def test_a_shorter_request_breaks_the_cache_where_it_departs():
    requests = [grown(5), [user("summary")] + grown(1)[1:]]
    assert cache_breaks(requests) == [(1, 0)]
    assert resent_tokens(requests) > 0


def test_breaks_are_counted_per_request():
    a = grown(2)
    b = [user("changed"), *grown(3)[1:]]
    c = b + [assistant("more"), user("more")]
    d = [user("changed again"), *c[1:]]
    assert [i for i, _ in cache_breaks([a, b, c, d])] == [1, 3]
