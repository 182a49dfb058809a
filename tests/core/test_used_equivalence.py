"""compaction.core.used's fast paths give what the plain definitions give, on any text and any history.

``specifics_among`` must equal ``specifics(text) & wanted``; ``pick_used`` its definition;
``LaterUse.lines`` the lines holding the result's specifics said in a message after it, asked in
any order, on lists edited between passes (results cleared, a summary replacing a prefix,
messages removed), so an answer kept from an earlier list would fail. Texts are drawn from
pieces that make every kind of token: paths, dotted and snake_case names, numbers, quoted
strings, ./ prefixes, and line breaks other than \\n.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compaction.core.messages import text, tool_result, tool_use
from compaction.core.used import LaterUse, pick_used, said_later, specifics, specifics_among


def reference_pick(result_text, later, *, max_lines=2, max_chars=160):
    """``pick_used`` by its definition: every line's specifics, most tokens said later first, bounded."""
    scored = []
    for k, line in enumerate(result_text.splitlines()):
        line = line.rstrip()
        if line.strip() and len(line) <= max_chars and max_lines > 0:
            hits = len(specifics(line) & later)
            if hits:
                scored.append((-hits, k, line))
    kept, used = [], 0
    for _, k, line in sorted(scored):
        if len(kept) == max_lines or used + len(line) > max_chars:
            break
        kept.append((k, line))
        used += len(line)
    return [line for _, line in sorted(kept)]


def reference_lines(result_text, messages, index, **bounds):
    """``LaterUse.lines`` from scratch: the result's specifics that a message after ``index`` says."""
    return reference_pick(result_text, specifics(result_text) & said_later(messages[index + 1 :]), **bounds)


PIECES = [
    "src/app.py", "./src/app.py", "app.py", "../lib/x.py", "src/", "top_words", "m.__doc__", "TypeError",
    "camelCase", "42", "7", "3.67", "1.2.3", "value", "the", "ab", "_x_", "a/b", "1/2", ".hidden", "-rf",
    '"a quoted string"', "'src/q.py'", '"src/"', "'ab'", '"', "'", ":", "=", " ", "  ", "\n", "\r\n",
    "\r", "\x85", "\u2028", "\t", "é", "İ", "x" * 170, "x/ab", "src/m5.py:12:", "'q/ab'",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def tokens_of(*values: str) -> set[str]:
    """Tokens a question may ask about: the texts' specifics, and words and file names that are not."""
    words = {w.strip("'\"./:=") for v in values for w in v.replace("/", " / ").split()}
    names = {w.rsplit("/", 1)[-1] for v in values for w in v.split()}
    return set().union(*(specifics(v) for v in values)) | words | names | {"value", "xyz", "ab"}


@settings(max_examples=300, deadline=None)
@given(texts, texts, st.integers(0, 200), st.data())
@example("a 'src/q.py' b", "say q.py", 0, None)
def test_specifics_among_equals_specifics_intersected(text_, other, extra, data):
    pool = sorted(tokens_of(text_, other))
    if data is None:
        wanted = set(pool)
    else:
        wanted = set(data.draw(st.lists(st.sampled_from(pool), max_size=len(pool))))
    assert specifics_among(text_, wanted) == specifics(text_) & wanted
    # a large set takes the path that reads the text's tokens instead of looking each one up
    large = wanted | {f"n{k}_{k}" for k in range(extra)}
    assert specifics_among(text_, large) == specifics(text_) & large


def assistant(words: str, command: str | None = None, n: int = 0) -> dict:
    content = [text(words or ".")]
    if command is not None:
        content.append(tool_use(f"toolu_{n}", "bash", {"command": command}))
    return {"role": "assistant", "content": content}


@st.composite
def histories(draw):
    """A user turn, then assistant texts and tool calls with results made of the pieces."""
    messages = [{"role": "user", "content": "start"}]
    for n in range(draw(st.integers(1, 8))):
        messages.append(assistant(draw(texts), draw(st.one_of(st.none(), texts)) or "ls", n))
        messages.append({"role": "user", "content": [tool_result(f"toolu_{n}", draw(texts) or "-")]})
    return messages


def results(messages):
    """(message index, result text) of every tool result."""
    return [
        (i, b["content"])
        for i, m in enumerate(messages)
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def assert_lines_match(messages, order, bounds):
    index = LaterUse(messages)
    for i, body in order:
        expected = reference_lines(body, messages, i, **bounds)
        assert index.lines(body, i, **bounds) == expected, (i, body)
        later = said_later(messages[i + 1 :])
        assert pick_used(body, later, **bounds) == reference_pick(body, later, **bounds)


bounds_space = st.fixed_dictionaries({"max_lines": st.integers(0, 3), "max_chars": st.integers(0, 200)})


@settings(max_examples=150, deadline=None)
@given(histories(), st.randoms(use_true_random=False), bounds_space)
def test_later_use_equals_used_lines_in_any_order(messages, rng, bounds):
    order = results(messages)
    rng.shuffle(order)  # newest first is micro's order; any order must give the same answers
    assert_lines_match(messages, order, bounds)


@settings(max_examples=100, deadline=None)
@given(histories(), st.data(), bounds_space)
def test_later_use_follows_a_list_edited_between_passes(messages, data, bounds):
    """A pass, then the list edited as the layers edit it, then a pass over the new list."""
    assert_lines_match(messages, results(messages), bounds)
    edit = data.draw(st.sampled_from(["clear", "summary", "remove", "say"]))
    cut = data.draw(st.integers(1, len(messages) - 1))
    if edit == "clear":  # a result replaced by a placeholder: a new message dict, as micro writes it
        edited = [
            {**m, "content": [{**b, "content": "[cleared]"} for b in m["content"]]}
            if k == cut and isinstance(m.get("content"), list)
            else m
            for k, m in enumerate(messages)
        ]
    elif edit == "summary":  # a summary replaces a prefix
        edited = [{"role": "user", "content": [text("Summary: src/app.py and 42.")]}, *messages[cut:]]
    elif edit == "remove":  # an assistant message's text said again by the next list, or dropped
        edited = [m for k, m in enumerate(messages) if k != cut or m["role"] != "assistant"]
    else:  # a new turn says tokens of an old result
        said = data.draw(texts)
        edited = [*messages, assistant(said + " " + " ".join(sorted(said_later(messages)))[:200])]
    assert_lines_match(edited, results(edited), bounds)
    assert_lines_match(messages, results(messages), bounds)  # the old list answers as before
