"""Checks for chapter 14 (the API's own context management): the edit, cache breaks, budgets, predictions.

``check_clear_edit`` holds the chapter's edit builder to whole-token values of the window, the
SDK's field shapes, and the offline server's acceptance.
``check_cache_breaks`` is differential against ``server_side.cache_breaks_from_usage`` on recorded and
handmade usage logs. ``check_edits_for_cost`` refuses a trigger that leaves no room below the window
for the answer the session asks (``run_agent``'s ``max_tokens``) and a ``keep`` of 0 (the model would
never see a result again), then runs the offline agent under the learner's edits with the course's
reading of the documented behaviour (every request over the trigger clears all but the newest ``keep``;
no option the offline server invented), and holds the session to an input cost without overflowing,
and its largest measured request to that same room; a session that did not run to its end fails every
row, with the refusal in a sentence (the field the API refused, or the call the window was outgrown at).
``check_predict_cleared`` compares a prediction of ``cleared_tool_uses`` with what the offline
server reports by that reading, on cases where it alone fixes the answer; a failing row leads with
the clause the prediction broke.
``check_client_keeps`` is differential against ``server_side.client_keeps``.
Deliberately left out: predictions of ``cleared_input_tokens``, which need the server's counter.
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable

from anthropic.types.beta import BetaClearToolUses20250919EditParam

from compaction.agent.backend import connect
from compaction.agent.loop import run_agent
from compaction.agent.server_side import UsageLog, cache_breaks_from_usage, client_keeps, run_managed_session
from compaction.core.api_errors import too_long_counts
from compaction.core.messages import (
    assistant,
    blocks,
    text,
    text_of,
    tool_result,
    tool_use,
    tool_use_blocks,
    user,
)
from compaction.core.tokens import count_text
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions, handmade_session
from compaction.presentation.language import say

WINDOW = 8_000
TURNS = 50
TOOLS = [
    {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
    for name in ("read_file", "bash", "grep")
]
CONTEXT_BETA = "context-management-2025-06-27"
ANSWER_TOKENS = inspect.signature(run_agent).parameters["max_tokens"].default  # what each call asks for


# ---------------------------------------------------------------- the chapter's edit


EDIT_CASES = [  # (name, window, keyword arguments, trigger, keep, clear_at_least or 0 for none)
    ("a quarter of 8,000, keep 3 by default", 8_000, {"at": 0.25}, 2_000, 3, 0),
    (
        "keep and clear_at_least as asked",
        8_000,
        {"at": 0.625, "keep": 2, "at_least": 0.3125},
        5_000,
        2,
        2_500,
    ),
    ("a real window: half of 200,000, keep 5", 200_000, {"at": 0.5, "keep": 5}, 100_000, 5, 0),
    ("whole tokens: a quarter of 7,999", 7_999, {"at": 0.25, "at_least": 0.1}, 1_999.75, 3, 799.9),
]


def _tokens(edit: dict, key: str, want: float) -> None:
    value = (edit.get(key) or {}).get("value", 0)
    kind = (edit.get(key) or {}).get("type", "input_tokens")
    assert kind == "input_tokens", f"{key}.type should be 'input_tokens', not {kind!r}"
    assert isinstance(value, int), f"{key}.value should be a whole number of tokens, not {value!r}"
    assert abs(value - want) < 1, f"{key}.value should be {want:,.2f} rounded to a whole token, not {value:,}"


def _builds(fn: Callable, window: int, kwargs: dict, trigger: float, keep: int, at_least: float) -> None:
    edit = fn(window, **kwargs)
    assert isinstance(edit, dict), f"return one edit (a dict), not {type(edit).__name__}"
    assert edit.get("type") == "clear_tool_uses_20250919", f"type should be clear_tool_uses_20250919: {edit}"
    _tokens(edit, "trigger", trigger)
    assert edit.get("keep") == {"type": "tool_uses", "value": keep}, (
        f"keep should be {{'type': 'tool_uses', 'value': {keep}}}, not {edit.get('keep')!r}"
    )
    _tokens(edit, "clear_at_least", at_least)
    extra = set(edit) - {"type", "trigger", "keep", "clear_at_least"}
    assert not extra, f"unexpected fields {sorted(extra)}"
    connect().beta.messages.count_tokens(  # the offline server refuses a malformed edit with a 400
        model="offline",
        messages=[user("Hello.")],
        betas=[CONTEXT_BETA],
        context_management={"edits": [edit]},
    )


def check_clear_edit(fn: Callable) -> CheckReport:
    """Chapter 14's ``clear_edit``: the trigger and clear_at_least as whole tokens of the window."""
    cases = [(name, lambda c=c: _builds(fn, *c)) for name, *c in EDIT_CASES]
    return run_cases("clear_edit", cases)


# ---------------------------------------------------------------- cache breaks


LEDGERS = [  # (name, cache read per call, cache written per call)
    ("no calls", [], []),
    ("one call", [0], [5000]),
    ("all appended", [0, 1100, 1500], [1100, 400, 600]),
    ("read exactly what was left is no break", [0, 2000], [2000, 600]),
    ("one token less is a break", [0, 1999], [2000, 601]),
    ("a cleared round in the middle", [0, 4000, 1200, 2600, 3100], [4000, 500, 1400, 500, 500]),
    ("an expired cache reads nothing", [0, 3000, 0], [3000, 400, 3800]),
    ("prompts under the cache minimum leave nothing to break", [0, 0, 0, 1100], [0, 0, 1100, 400]),
    ("what a call read and wrote are both left in the cache", [0, 1500, 1500], [1500, 600, 700]),
]


def _same_breaks(fn: Callable, read: list, written: list) -> None:
    got = fn(list(read), list(written))
    want = cache_breaks_from_usage(read, written)
    assert list(got) == want, (
        f"calls {want} broke the cache, not {list(got)} (read {read}, written {written})"
    )


def check_cache_breaks(fn: Callable, recorded: list[tuple[list, list]] = ()) -> CheckReport:
    """The chapter's function: the calls that read back less than the call before them left in the cache."""
    cases = [(name, lambda r=r, w=w: _same_breaks(fn, r, w)) for name, r, w in LEDGERS]
    cases += [
        (f"a recorded session of {len(r)} calls", lambda r=r, w=w: _same_breaks(fn, r, w))
        for r, w in recorded
    ]
    return run_cases("cache_breaks", cases)


# ---------------------------------------------------------------- clearing within a cost


COSTS = (130_000, 120_000)  # base-price input tokens; the chapter's 62.5%/31% edit cost 139,890
DEFAULT_KEEP = 3  # the documented default of keep (context-editing page, "Configuration options")
EDIT_FIELDS = frozenset(BetaClearToolUses20250919EditParam.__annotations__)  # the SDK's fields of the edit
INVENTED = ("clear_in_rounds", "course_scale")  # the offline server's own options (connect), not the API's


def kept_by(edit: dict) -> str:
    """What each request over the edit's trigger still sends of the old tool uses, in words."""
    keep = (edit.get("keep") or {}).get("value")
    kept = (
        say("keep {n}", n=keep)
        if keep is not None
        else say("keep left out: {n}, the default", n=DEFAULT_KEEP)
    )
    inputs = edit.get("clear_tool_inputs")
    if inputs is True:
        cleared = say("tool inputs cleared")
    elif inputs:
        cleared = say("inputs of {tools} cleared, the others kept", tools=", ".join(map(str, inputs)))
    elif inputs is None:
        cleared = say("tool inputs kept (clear_tool_inputs not set)")
    else:
        cleared = say("tool inputs kept (clear_tool_inputs set to {value!r})", value=inputs)
    kept = say("{kept}, {cleared}", kept=kept, cleared=cleared)
    if edit.get("exclude_tools"):
        spared = say(
            "the uses of {tools} never cleared (exclude_tools)",
            tools=", ".join(map(str, edit["exclude_tools"])),
        )
        kept = say("{kept}, {cleared}", kept=kept, cleared=spared)
    return kept


def _edit_shape(edit: object) -> None:
    """One edit: clear_tool_uses only, the SDK's fields only, room for the answer, keep at least 1."""
    assert isinstance(edit, dict), say("return a list of edits (dicts), at least one")
    kind = edit.get("type")
    assert kind == "clear_tool_uses_20250919", f"use clear_tool_uses_20250919 only, not {kind!r}"
    for name in sorted(set(edit) - EDIT_FIELDS):
        invented = say(" (an option of the course's offline server, which the real API does not have)")
        raise AssertionError(
            say(
                "{name} is not a field of the edit{invented}: the SDK's BetaClearToolUses20250919EditParam "
                "has {fields}",
                name=name,
                invented=invented if name in INVENTED else "",
                fields=", ".join(sorted(EDIT_FIELDS)),
            )
        )
    trigger = edit.get("trigger") or {}
    if trigger.get("type", "input_tokens") == "input_tokens" and "value" in trigger:
        room = WINDOW - ANSWER_TOKENS
        assert trigger["value"] <= room, (
            f"trigger {trigger['value']:,} leaves no room for the answer: every call asks max_tokens "
            f"{ANSWER_TOKENS:,}, and {trigger['value']:,} + {ANSWER_TOKENS:,} > the {WINDOW:,}-token "
            f"window; at most {room:,}"
        )
    keep = (edit.get("keep") or {}).get("value", DEFAULT_KEEP)
    assert keep >= 1, (
        f"keep {keep}: over the trigger every tool use is cleared, the newest too, so the model never "
        "sees a tool result again; keep at least 1"
    )


def _session(fn: Callable, budget: int, runs: dict) -> tuple[UsageLog, object, list]:
    """The learner's edits for ``budget``, checked (shape, trigger, keep), and their session, run once."""
    if budget in runs:
        return runs[budget]
    edits = fn(WINDOW, budget)
    assert isinstance(edits, list) and edits, say("return a list of edits (dicts), at least one")
    for edit in edits:
        _edit_shape(edit)
    runs[budget] = (*run_managed_session(edits, window=WINDOW, turns=TURNS), edits)  # the course's reading
    return runs[budget]


API_WANTS = {  # the API's words for a value it refused -> what the row says it wants
    "a valid integer": "an integer (a whole number)",
}


def _edit_value(edits: list, path: str) -> object:
    """The value at ``path`` (``edits.0.trigger.value``) in the edits sent, or None."""
    value: object = {"edits": edits}
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _kept_by_all(edits: list) -> str:
    """What each request still sends under every edit given, ``kept_by`` of each, in one line."""
    return "; ".join(kept_by(e) for e in edits)


def _trigger_words(edit: dict) -> str:
    """An edit's trigger, in words: "20 tool uses" or "3,904 input tokens"."""
    trigger = edit.get("trigger") or {}
    if trigger.get("type") == "tool_uses":
        return say("{n} tool uses", n=trigger.get("value"))
    return say("{n:,} input tokens", n=trigger.get("value", 100_000))


def _ran_to_its_end(log: UsageLog, result: object, edits: list) -> None:
    """A session that did not run to its end fails, said in a sentence: why the API refused it, and where."""
    error = result.error
    if error is None:
        return
    call = len(log.sent)
    message = str(((getattr(error, "body", None) or {}).get("error") or {}).get("message") or error)
    counts = too_long_counts(error)
    if counts is None:
        field, _, wants = message.partition(": Input should be ")
        if wants:
            path = field.removeprefix("context_management.")
            raise AssertionError(
                say(
                    "the API refused the request at call {call}, so the session never ran: {field} is "
                    "{value!r}, and the API wants {wants}",
                    call=call,
                    field=re.sub(r"\.(\d+)", r"[\1]", path),
                    value=_edit_value(edits, path),
                    wants=say(API_WANTS[wants]) if wants in API_WANTS else wants,
                )
            )
        raise AssertionError(
            say("the session ended early at call {call}: {message}", call=call, message=message)
        )
    if not any(e.get("trigger") for e in edits) and not sum(log.cleared):
        raise AssertionError(
            say(
                "the session ended early at call {call}: the edit has no trigger, and nothing was cleared "
                "before a request outgrew the {window:,}-token window; give a trigger",
                call=call,
                window=WINDOW,
            )
        )
    if not sum(log.cleared):
        raise AssertionError(
            say(
                "the session was refused at call {call}: the context grew past the {window:,}-token window "
                "({tokens:,} tokens) before the trigger ({trigger}) was reached, and nothing had been "
                "cleared; a trigger the context reaches sooner clears in time",
                call=call,
                window=counts[1],
                tokens=counts[0],
                trigger="; ".join(_trigger_words(e) for e in edits),
            )
        )
    raise AssertionError(
        say(
            "the session was refused at call {call}: a request of {tokens:,} tokens outgrew the"
            " {window:,}-token "
            "window although clearings ran; what they keep ({kept}) is too much",
            call=call,
            tokens=counts[0],
            window=counts[1],
            kept=_kept_by_all(edits),
        )
    )


def _within_cost(fn: Callable, budget: int, runs: dict) -> None:
    log, result, edits = _session(fn, budget, runs)
    _ran_to_its_end(log, result, edits)
    assert sum(log.cleared) > 0, say("nothing was ever cleared")
    totals = log.totals()
    assert totals["cost"] <= budget, say(
        "input cost {cost:,} base-price tokens, budget {budget:,}: {sent:,} tokens sent, {written:,} of "
        "them written to the cache (1.25x) on {breaks} cache breaks; every request over the trigger "
        "sends what the edit keeps ({kept}): fewer results kept, or their tool inputs cleared too, "
        "sends less on every call",
        cost=totals["cost"],
        budget=budget,
        sent=totals["sent"],
        written=totals["cache written"],
        breaks=len(log.breaks()),
        kept=_kept_by_all(edits),
    )


def _room_measured(fn: Callable, budget: int, runs: dict) -> None:
    log, result, edits = _session(fn, budget, runs)
    _ran_to_its_end(log, result, edits)
    room = WINDOW - ANSWER_TOKENS
    peak = max(log.sent, default=0)
    call = log.sent.index(peak) if log.sent else 0
    if peak <= room:
        return
    excluded = sorted({str(t) for e in edits for t in e.get("exclude_tools") or []})
    if excluded:
        why = say(
            "exclude_tools keeps every use of {tools} whole, and they pile up call after call: exclude fewer "
            "tools (each request keeps {kept})",
            tools=", ".join(excluded),
            kept=_kept_by_all(edits),
        )
    else:
        why = say(
            "what a clearing keeps, {kept}, is still over it: fewer results kept, or their tool inputs "
            "cleared too, makes room; a clearing skipped for clear_at_least, or a trigger counted in tool "
            "uses that comes late, lets it grow the same way",
            kept=_kept_by_all(edits),
        )
    raise AssertionError(
        say(
            "call {call} sent {peak:,} input tokens: with max_tokens {answer:,} its answer had {left:,} of"
            " the "
            "{window:,}-token window; every request must stay at most {room:,} ({why})",
            call=call,
            peak=peak,
            answer=ANSWER_TOKENS,
            left=WINDOW - peak,
            window=WINDOW,
            room=room,
            why=why,
        )
    )


def check_edits_for_cost(fn: Callable) -> CheckReport:
    """Exercise 1: 50 calls, 8,000-token window, documented clearing, within a cost, room for the answer."""
    runs: dict = {}
    cases = []
    for b in COSTS:
        cases.append((f"cost at most {b:,}", lambda b=b: _within_cost(fn, b, runs)))
        cases.append(
            (
                f"cost at most {b:,}: largest request leaves the answer its room",
                lambda b=b: _room_measured(fn, b, runs),
            )
        )
    return run_cases("edits_for_cost", cases)


# ---------------------------------------------------------------- predicting applied_edits


def review_session(n: int, names: tuple[str, ...] = ("read_file",)) -> list[dict]:
    """A task, then ``n`` turns of one tool call each (cycling ``names``), each answered."""
    messages = [user("Review the project, one file at a time.")]
    for k in range(n):
        use_id = f"toolu_r{k:02d}"
        call = tool_use(use_id, names[k % len(names)], {"path": f"pkg/m{k}.py"})
        messages.append(assistant(text(f"Looking at pkg/m{k}.py."), call))
        messages.append(user(tool_result(use_id, f"line {k}\n" * 60)))
    return messages


def by_uses(trigger: int, keep: int, exclude: tuple[str, ...] = (), at_least: int = 0) -> dict:
    """A clear_tool_uses edit triggered by the number of tool uses."""
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": trigger},
        "keep": {"type": "tool_uses", "value": keep},
    }
    if exclude:
        edit["exclude_tools"] = list(exclude)
    if at_least:
        edit["clear_at_least"] = {"type": "input_tokens", "value": at_least}
    return edit


# Each answer is fixed by the course's reading of the documented behaviour alone: where the offline
# server chose (does an excluded use take one of the kept places? does it count toward the trigger?),
# every reading gives the same number. The results hold about 240 tokens each (60 lines of "line k"),
# so each clear_at_least is ten times away from what a clearing removes, whatever tokenizer is used.
PREDICTIONS = [  # (name, session size, tools cycled, edit)
    ("at the trigger nothing is cleared", 6, ("read_file",), by_uses(6, 2)),
    ("one above the trigger", 7, ("read_file",), by_uses(6, 2)),
    ("keep 0", 5, ("read_file",), by_uses(3, 0)),
    ("every request over the trigger clears again", 10, ("read_file",), by_uses(4, 2)),
    ("keep above the trigger", 8, ("read_file",), by_uses(3, 5)),
    ("keep above the number of tool uses", 4, ("read_file",), by_uses(3, 5)),
    ("excluded tools are never cleared", 11, ("read_file", "bash"), by_uses(5, 1, ("bash",))),
    ("clear_at_least more than a clearing removes", 8, ("read_file",), by_uses(3, 1, at_least=20_000)),
    ("clear_at_least less than a clearing removes", 8, ("read_file",), by_uses(3, 1, at_least=150)),
]


def server_cleared_reference(messages: list, edit: dict) -> int:
    """The offline server's ``cleared_tool_uses`` for ``edit`` on ``messages``, by the course's reading."""
    answer = connect(context_window=200_000).beta.messages.create(
        model="offline",
        max_tokens=64,
        messages=messages,
        tools=TOOLS,
        betas=[CONTEXT_BETA],
        context_management={"edits": [edit]},
    )
    applied = answer.context_management.applied_edits
    return applied[0].cleared_tool_uses if applied else 0


def rule_broken(messages: list, edit: dict, got: object) -> str:
    """The clause of the course's reading that ``got`` broke, first, then the rest of the count, in words.

    Only for a ``tool_uses`` trigger (the predictions' cases): the trigger, then ``keep``, then
    ``exclude_tools``, then ``clear_at_least`` (tokens counted with tiktoken, as a learner may).
    """
    uses = [b for m in messages if m["role"] == "assistant" for b in tool_use_blocks(m)]
    n, trigger, keep = len(uses), edit["trigger"]["value"], edit["keep"]["value"]
    if n <= trigger:
        return say(
            "clearing starts only when the context grows beyond the trigger: {n} tool uses is not more "
            "than {trigger}, so nothing is cleared",
            n=n,
            trigger=trigger,
        )
    older = uses[: max(0, n - keep)]
    if not older:
        return say(
            "keep {keep} retains the newest {keep} tool uses, and there are only {n}: none is older, so "
            "nothing is cleared (a count of cleared tool uses is never below 0)",
            keep=keep,
            n=n,
        )
    clauses = {
        "keep": say(
            "past the trigger ({n} > {trigger}) every request clears all but the newest {keep} tool uses, "
            "whatever an earlier request cleared: {n} - {keep} = {older}",
            n=n,
            trigger=trigger,
            keep=keep,
            older=len(older),
        )
    }
    excluded = set(edit.get("exclude_tools") or [])
    cleared = [b for b in older if b["name"] not in excluded]
    if len(cleared) < len(older):
        clauses["exclude"] = say(
            "the uses of exclude_tools are never cleared: {spared} of those {older} are {tools}, so {left}",
            spared=len(older) - len(cleared),
            older=len(older),
            tools=", ".join(sorted(excluded)),
            left=len(cleared),
        )
    least = (edit.get("clear_at_least") or {}).get("value")
    if least:
        ids = {b["id"] for b in cleared}
        removed = sum(
            count_text(text_of(b.get("content")), "tiktoken")
            for m in messages
            for b in blocks(m)
            if b["type"] == "tool_result" and b["tool_use_id"] in ids
        )
        clauses["at_least"] = say(
            "clearing those {left} removes about {removed:,} tokens, {than} clear_at_least {least:,}, so"
            " {verdict}",
            left=len(cleared),
            removed=removed,
            than=say("at least") if removed >= least else say("fewer than"),
            least=least,
            verdict=say("they are cleared") if removed >= least else say("the context is not modified"),
        )
    # the clause the number broke: the one it would be right without; else keep, the count it starts from
    if "at_least" in clauses and got in (len(cleared), 0):
        lead = "at_least"
    elif "exclude" in clauses and got == len(older):
        lead = "exclude"
    else:
        lead = "keep"
    rest = [text for key, text in clauses.items() if key != lead]
    if not rest:
        return clauses[lead]
    return say("{lead}. The rest of the count: {rest}", lead=clauses[lead], rest="; ".join(rest))


def _predicted(fn: Callable, n: int, names: tuple, edit: dict) -> None:
    session = review_session(n, names)
    got = fn(copy.deepcopy(session), copy.deepcopy(edit))
    want = server_cleared_reference(session, edit)
    excluded = f", exclude_tools {edit['exclude_tools']}" if edit.get("exclude_tools") else ""
    least = edit.get("clear_at_least")
    least = say(", clear_at_least {n:,} tokens", n=least["value"]) if least else ""
    tools = say("{tools} in turn", tools=", ".join(names)) if len(names) > 1 else names[0]
    assert got == want, say(
        "{n} tool uses ({tools}), trigger {trigger} tool uses, keep {keep}{excluded}{least}: the "
        "server clears {want}, not {got}. The rule broken (the course's reading of the documented "
        "behaviour): {rule}",
        n=n,
        tools=tools,
        trigger=edit["trigger"]["value"],
        keep=edit["keep"]["value"],
        excluded=excluded,
        least=least,
        want=want,
        got=got,
        rule=rule_broken(session, edit, got),
    )


def check_predict_cleared(fn: Callable) -> CheckReport:
    """Exercise 2: ``cleared_tool_uses`` by the course's reading of the documented behaviour."""
    cases = [(name, lambda n=n, t=t, e=e: _predicted(fn, n, t, e)) for name, n, t, e in PREDICTIONS]
    return run_cases("predict_cleared", cases)


# ---------------------------------------------------------------- what the client keeps


KEEP_RULES = {  # each list of client_keeps and the rule its items follow
    "user_words": "the text of every user turn, in order",
    "files_changed": "each file once, in the order of its first change",
}


def _keeps_the_same(fn: Callable, session: list) -> None:
    given = copy.deepcopy(session)
    got = fn(given)
    want = client_keeps(session)
    assert given == session, say("the input list was changed")
    assert isinstance(got, dict) and set(got) == set(want), f"return a dict with keys {sorted(want)}"
    for key in want:  # the first differing key, shortly: what is extra, what is missing
        assert got[key] == want[key], f"{key}: {_short_diff(got[key], want[key], say(KEEP_RULES[key]))}"


def _clip(value: object, width: int = 60) -> str:
    shown = repr(value)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def _short_diff(got: object, want: list, rule: str) -> str:
    """What a list has that it should not, what it lacks, or where it breaks ``rule`` first."""
    if not isinstance(got, list):
        return say(
            "expected a list of {n} strings, got {kind} {value}",
            n=len(want),
            kind=type(got).__name__,
            value=_clip(got),
        )
    extra = [g for g in got if g not in want]
    missing = [w for w in want if w not in got]
    parts = []
    if extra:
        parts.append(say("{n} extra, first {first}", n=len(extra), first=_clip(extra[0])))
    if missing:
        parts.append(say("{n} missing, first {first}", n=len(missing), first=_clip(missing[0])))
    again = [g for i, g in enumerate(got) if g in got[:i] and got.count(g) > want.count(g)]
    if not parts and again:
        parts.append(
            say(
                "{item} is listed {times} times ({n} items, {expected} expected): {rule}",
                item=_clip(again[0]),
                times=got.count(again[0]),
                n=len(got),
                expected=len(want),
                rule=rule,
            )
        )
    if not parts:
        at = next(
            (i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), min(len(got), len(want))
        )
        end = say("the end")
        parts.append(
            say(
                "at {at} expected {want}, got {got}: {rule}",
                at=at,
                want=_clip(want[at]) if at < len(want) else end,
                got=_clip(got[at]) if at < len(got) else end,
                rule=rule,
            )
        )
    return "; ".join(parts)


def mixed_session() -> list[dict]:
    """Text after results, a string message, a file edited twice, a file written."""
    session = handmade_session()
    session[-1] = assistant(
        "Now the docs.",
        tool_use("toolu_06", "edit_file", {"path": "calc.py", "old_text": "+", "new_text": "+ "}),
        tool_use("toolu_07", "write_file", {"path": "NOTES.md", "content": "add fixed"}),
    )
    session.append(
        user(tool_result("toolu_06", "ok"), tool_result("toolu_07", "ok"), text("Keep the API stable."))
    )
    session.append(assistant("Understood."))
    session.append(user("Also: never touch tests/."))
    return session


def edited_again_session() -> list[dict]:
    """calc.py changed, then NOTES.md, then calc.py again: files come in the order of their first change."""
    session = mixed_session()
    edit = tool_use("toolu_08", "edit_file", {"path": "calc.py", "old_text": "- ", "new_text": "-"})
    session.append(assistant(edit))
    session.append(user(tool_result("toolu_08", "ok")))
    return session


def check_client_keeps(fn: Callable) -> CheckReport:
    """Exercise 3: the user's own words and the files changed, as ``server_side.client_keeps`` finds them."""
    sessions = [
        ("the handmade session", handmade_session()),
        ("text after results, a string turn", mixed_session()),
        ("a file changed, another, then the first again", edited_again_session()),
    ]
    sessions += [(f"course session {k + 1}", s) for k, s in enumerate(course_sessions())]
    cases = [(name, lambda s=s: _keeps_the_same(fn, s)) for name, s in sessions]
    return run_cases("client_keeps", cases)
