"""micro_compact with a ``Scanned`` kept from pass to pass: the same result as a pass over the whole list.

A pipeline runs micro turn after turn on a list that grows at its end; ``Scanned`` lets a pass skip
the head an earlier pass settled. Whatever the lists (grown from the last output or from a rejected
one, snipped, summarized, with results cleared by other settings, calls far from their results,
ids used twice) and whatever the settings from pass to pass, every pass must equal the same call
without ``Scanned``, and the work of a pass must follow what arrived since the last one.
"""

from __future__ import annotations

from conversations import Call, Turn, build_session, sessions
from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.placeholders import cleared_placeholder, persisted_marker
from compaction.layers import micro as micro_module
from compaction.layers.micro import Micro, Scanned, micro_compact
from compaction.pipeline.compactor import Compactor

LONG = "x = 1\n" * 100  # 600 characters

SETTINGS = st.fixed_dictionaries(
    {
        "keep_recent": st.integers(0, 4),
        "min_chars": st.sampled_from([0, 120, 400]),
        "exclude_tools": st.sampled_from([(), ("bash",), ("read_file", "glob")]),
        "keep_used": st.sampled_from([0, 0, 2]),
    }
)
# what happens to the list between two passes
STEPS = st.lists(
    st.tuples(
        st.integers(1, 6),  # messages that arrive
        st.sampled_from(["kept", "kept", "rejected", "snipped", "summarized", "cleared elsewhere"]),
        st.booleans(),  # the settings change
    ),
    max_size=8,
)


def passes(session: list[dict], steps, first: dict, other: dict):
    """(input, settings) of each pass of a pipeline-like run over ``session``, with its ``Scanned``."""
    scanned, current, arrived, options = Scanned(), [], 0, first
    for count, what, switch in steps:
        new = session[arrived : arrived + count]
        arrived += count
        options = (other if options is first else first) if switch else options
        given = current + new
        yield given, options, scanned
        out = micro_compact(given, **options, scanned=scanned)
        if what == "kept":
            current = out
        elif what == "rejected":  # the pipeline threw the clearing away: the next list grows the input
            current = given
        elif what == "snipped" and len(out) > 4:
            current = out[:1] + out[len(out) // 2 :]
        elif what == "summarized":
            current = [user("[Compacted because the context was nearly full] summary")]
        elif what == "cleared elsewhere":  # another layer's placeholders, newest first
            current = micro_compact(out, keep_recent=0, min_chars=0)
        else:
            current = out


@settings(max_examples=150, deadline=None)
@given(sessions(max_turns=14, huge=False), STEPS, SETTINGS, SETTINGS)
def test_every_pass_equals_a_pass_over_the_whole_list(session, steps, first, other):
    for given_list, options, scanned in passes(session, steps, first, other):
        expected = micro_compact(given_list, **options)
        assert micro_compact(given_list, **options, scanned=scanned) == expected


def odd_list() -> list[dict]:
    """Results whose call is far back, an id used twice, a placeholder before whole results, markers."""
    far = [assistant(tool_use("far", "bash", {"command": "make"}))]
    far += [user(tool_result("far", LONG))]
    out = [user("Fix it.")]
    out += [
        assistant(tool_use("t1", "read_file", {"path": "a.py"}), tool_use("t2", "bash", {"command": "ls"}))
    ]
    out += [
        user(tool_result("t1", cleared_placeholder("read_file", {"path": "a.py"})), tool_result("t2", LONG))
    ]
    out += [assistant(text("thinking")), user(tool_result("far", LONG), text("again"))]  # its call: 5 back
    out += [assistant(tool_use("t1", "glob", {"pattern": "*.py"}))]  # t1 used twice
    out += [user(tool_result("t1", persisted_marker("/tmp/x", 9_000, "preview")))]
    out += [assistant(tool_use("t3", "bash", {"command": "echo " + "e" * 700}))]
    out += [user(tool_result("t3", "short but over min_chars " * 6))]  # its note would be longer
    return far + out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), SETTINGS)
def test_odd_lists_grown_in_any_order_give_the_same_result(cuts, options):
    whole = odd_list() + build_session([Turn([Call("read_file", LONG)]) for _ in range(3)])[1:]
    scanned, end = Scanned(), 0
    for cut in cuts:
        end = min(len(whole), end + cut)
        given_list = whole[:end]
        assert micro_compact(given_list, **options, scanned=scanned) == micro_compact(given_list, **options)


def grown(turns: int) -> list[dict]:
    return build_session([Turn([Call("read_file", LONG)]) for _ in range(turns)])


def test_a_pass_looks_only_at_what_arrived_since_the_last(monkeypatch):
    """Counted by the results a pass asks about: the newest few, not the whole history."""
    session, scanned, out = grown(400), Scanned(), []
    asked: list[int] = []
    real = micro_module.is_cleared
    monkeypatch.setattr(micro_module, "is_cleared", lambda content: asked.append(1) or real(content))
    for end in range(3, len(session) + 1, 2):
        asked.clear()
        out = micro_compact(out + session[len(out) : end], keep_recent=1, scanned=scanned)
        assert len(asked) <= 4, f"a pass at {end} messages asked about {len(asked)} results"
    asked.clear()
    micro_compact(out, keep_recent=1)  # without Scanned: the whole history again
    assert len(asked) == 399


def test_the_pipeline_keeps_one_scanned_per_micro_and_gives_the_same_lists():
    session = grown(60)
    layer = Micro(keep_recent=2, trigger=0.0, clear_at_least=0)
    compactor = Compactor([layer], context_window=200_000)
    fresh = Micro(keep_recent=2, trigger=0.0, clear_at_least=0, run=lambda m, **o: micro_compact(m, **o))
    plain = Compactor([fresh], context_window=200_000)
    mine = theirs = []
    for end in range(3, len(session) + 1, 2):
        mine = compactor.prepare(mine + session[len(mine) : end])
        theirs = plain.prepare(theirs + session[len(theirs) : end])
        assert mine == theirs
    assert isinstance(compactor.state(layer)["scanned"], Scanned)
    assert "scanned" not in plain.state(fresh)  # a learner's run gets no Scanned (its calls are counted)


def flips(first: list[dict], then: list[dict], index: int, **options) -> tuple[bool, bool]:
    """Whether the result in message ``index`` is cleared by a pass over ``first``, then over ``then``."""
    scanned = Scanned()
    a = micro_compact(first, **options, scanned=scanned)
    b = micro_compact(a + then[len(a) :], **options, scanned=scanned)
    assert a == micro_compact(first, **options)
    assert b == micro_compact(a + then[len(a) :], **options)
    return a[index] is not first[index], b[index] is not then[index]


def far_call(name: str, tool_input: dict, result: str) -> list[dict]:
    """A result whose call is five messages back (out of reach of the search next to it)."""
    return [
        user("Go."),
        assistant(tool_use("far", name, tool_input)),
        user(text("waiting")),
        assistant(text("still waiting")),
        user(text("and now")),
        assistant(text("here it is")),
        user(tool_result("far", result)),
    ]


def test_an_excluded_result_whose_call_is_far_is_looked_at_again():
    """A later call with the same id (last one wins when the call is far) is not excluded: cleared."""
    first = far_call("bash", {"command": "make"}, LONG)
    then = first + [assistant(tool_use("far", "read_file", {"path": "a.py"}))]
    assert flips(first, then, 6, keep_recent=0, exclude_tools=("bash",)) == (False, True)


def test_a_note_too_long_whose_call_is_far_is_looked_at_again():
    """Its note names the far call's long command; a later call with the same id has a short one."""
    first = far_call("bash", {"command": "echo " + "e" * 700}, "y" * 250)  # its note: 281 characters
    then = first + [assistant(tool_use("far", "bash", {"command": "ls"}))]
    assert flips(first, then, 6, keep_recent=0) == (False, True)


def test_a_note_too_long_with_kept_lines_is_looked_at_again():
    """Kept lines are chosen by later messages: a long used line, then two shorter ones used more."""
    long_line = "alpha_one " + "v" * 120
    result = "\n".join([long_line, "beta_two delta_four", "gamma_three eps_five", "plain words " * 3])
    session = build_session([Turn([Call("bash", result, input={"command": "ls"})])])
    first = session + [assistant(text("alpha_one"))]
    then = first + [user("ok"), assistant(text("beta_two delta_four gamma_three eps_five"))]
    assert flips(first, then, 2, keep_recent=0, min_chars=0, keep_used=2) == (False, True)


def test_what_was_short_for_one_min_chars_is_looked_at_again_with_another():
    session = build_session([Turn([Call("read_file", "y" * 200)]) for _ in range(3)])
    scanned = Scanned()
    assert micro_compact(session, keep_recent=0, min_chars=400, scanned=scanned) == session
    out = micro_compact(session, keep_recent=0, min_chars=0, scanned=scanned)
    assert out == micro_compact(session, keep_recent=0, min_chars=0) != session


def test_the_default_lists_error_and_used_lines_give_the_same_lists_pass_by_pass():
    """keep_errors=2 and keep_used=1 (the default list's): a placeholder's lines as a whole pass's."""
    failing = "Traceback (most recent call last):\n  File 'a.py'\nValueError: bad row 7\n" + LONG
    session = build_session(
        [Turn([Call("bash", failing if k % 3 == 0 else LONG + f"row_{k}\n")]) for k in range(40)]
    )
    scanned, out = Scanned(), []
    options = {"keep_recent": 1, "keep_errors": 2, "keep_used": 1}
    for end in range(3, len(session) + 1, 2):
        given = out + session[len(out) : end]
        out = micro_compact(given, **options, scanned=scanned)
        assert out == micro_compact(given, **options)
    assert sum("ValueError: bad row 7" in str(m) for m in out) >= 10  # the error lines were kept
    assert scanned.settings[2:] == (1, 2)  # a head settled under these lines only
