"""Exercise checks: run a learner's function against named cases and show a pass/fail table.

Each topic has a module here (``compaction.course.checks.messages``, ``.snip``, ...) whose ``check_*``
functions take the learner's implementation and return a ``CheckReport``. A case is a small
function that raises ``AssertionError`` with a readable reason when the implementation is wrong.
The same reports drive the notebooks (a table), the terminal (``python -m compaction.course check``
prints every row) and pytest (``report.passed``). ``explain_difference`` and
``assert_same_messages`` turn two message lists into one sentence that names the first fault: the
message index, the block and its tool id, and the field ("message 12, block 0 (tool_result
toolu_08): `is_error` dropped"). An exercise's checks (``for_exercise``) refuse the package's own
code handed in as the learner's (``package_code``), and a function of the learner's that calls the
package's function it must match (``calls_package``). Deliberately left out: timing limits and
sandboxing; a check runs the learner's code in the learner's own kernel.
"""

from __future__ import annotations

import functools
import html
import importlib
import sys
import traceback
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType, SimpleNamespace

from compaction.presentation.language import say, translated

SUMMARY = "{verdict} {title}: {ok}/{total} checks passed"  # a report's first line, in English


def shown_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@dataclass(frozen=True)
class CheckResult:
    """One case: its name, whether it passed, and why not."""

    name: str
    passed: bool
    detail: str = ""


@dataclass
class CheckReport:
    """The results of one exercise's checks, shown as a table in a notebook."""

    title: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every case passed."""
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        """The cases that failed."""
        return [r for r in self.results if not r.passed]

    def summary(self) -> str:
        """One line: how many cases passed."""
        ok = sum(r.passed for r in self.results)
        verdict = "PASS" if self.passed else "FAIL"
        title = translated(self.title)
        return say(SUMMARY, verdict=verdict, title=title, ok=ok, total=len(self.results))

    def __str__(self) -> str:
        width = max((shown_width(r.name) for r in self.results), default=4)
        lines = [self.summary()]
        for r in self.results:
            mark = "pass" if r.passed else "FAIL"
            name = r.name + " " * (width - shown_width(r.name))
            lines.append(f"  {mark}  {name}  {r.detail}".rstrip())
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td style='color:{'#1a7f37' if r.passed else '#cf222e'};font-weight:bold'>"
            f"{'pass' if r.passed else 'FAIL'}</td><td>{html.escape(r.name)}</td>"
            f"<td>{html.escape(r.detail)}</td></tr>"
            for r in self.results
        )
        return (
            f"<div class='compaction-check'><b>{html.escape(self.summary())}</b>"
            f"<table><tr><th></th><th>{say('check')}</th><th>{say('detail')}</th></tr>{rows}</table></div>"
        )


Case = Callable[[], None]


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def text_difference(got: str, want: str, width: int = 40) -> str:
    """Where two strings first differ: the character index and an excerpt of each from just before it."""
    at = next(
        (i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), min(len(got), len(want))
    )
    start = max(0, at - 10)

    def excerpt(value: str) -> str:
        part = value[start : start + width]
        shown = repr(part) if part else say("(the end)")
        return ("..." if start else "") + shown + ("..." if start + width < len(value) else "")

    return say(
        "first difference at character {at}: got {got}, expected {want}",
        at=at,
        got=excerpt(got),
        want=excerpt(want),
    )


def _block_label(block: object) -> str:
    if not isinstance(block, dict):
        return type(block).__name__
    kind = block.get("type", "?")
    ident = block.get("id") or block.get("tool_use_id")
    return f"{kind} {ident}" if ident else str(kind)


def _field_fault(got: dict, want: dict) -> str:
    """The first field in which two dicts differ, as a phrase: dropped, added or changed."""
    for key in want:
        if key not in got:
            return say("`{key}` dropped", key=key)
        if got[key] != want[key]:
            if isinstance(want[key], str) and isinstance(got[key], str):
                return say(
                    "`{key}` differs; {difference}", key=key, difference=text_difference(got[key], want[key])
                )
            return say(
                "`{key}` changed: expected {want}, got {got}",
                key=key,
                want=_short(want[key]),
                got=_short(got[key]),
            )
    extra = [k for k in got if k not in want]
    return (
        say("`{key}` added ({value})", key=extra[0], value=_short(got[extra[0]])) if extra else say("differs")
    )


def explain_difference(got: object, want: object) -> str | None:
    """Where two message lists first differ: one sentence naming message, block and field (None if equal)."""
    if got == want:
        return None
    if not isinstance(got, list):
        return say("expected a list of messages, got {kind}", kind=type(got).__name__)
    fault = _first_fault(got, want)
    if len(got) != len(want) and not all(g == w for g, w in zip(got, want, strict=False)):
        return say(
            "{n} messages returned, expected {m}; the first difference: {fault}",
            n=len(got),
            m=len(want),
            fault=fault,
        )
    return fault


def _first_fault(got: list, want: list) -> str:
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g == w:
            continue
        if not isinstance(g, dict) or not isinstance(w, dict):
            return say("message {i}: expected a dict, got {kind}", i=i, kind=type(g).__name__)
        if g.get("role") != w.get("role"):
            return say(
                "message {i}: role is {got}, expected {want}",
                i=i,
                got=repr(g.get("role")),
                want=repr(w.get("role")),
            )
        gc, wc = g.get("content"), w.get("content")
        if isinstance(wc, str) or isinstance(gc, str) or not isinstance(gc, list):
            if isinstance(gc, str) and isinstance(wc, str):
                return say(
                    "message {i}: content differs; {difference}", i=i, difference=text_difference(gc, wc)
                )
            return say("message {i}: content is {got}, expected {want}", i=i, got=_short(gc), want=_short(wc))
        for j, (gb, wb) in enumerate(zip(gc, wc, strict=False)):
            if gb != wb:
                where = say("message {i}, block {j} ({label})", i=i, j=j, label=_block_label(wb))
                if not isinstance(gb, dict):
                    return say("{where}: expected a dict, got {kind}", where=where, kind=type(gb).__name__)
                if gb.get("type") != wb.get("type"):
                    return say("{where}: got a {label} block instead", where=where, label=_block_label(gb))
                if "tool_use_id" in wb and gb.get("tool_use_id") != wb["tool_use_id"]:
                    return f"{where}: {_order_fault(gc, wc, gb.get('tool_use_id'), wb['tool_use_id'])}"
                return f"{where}: {_field_fault(gb, wb)}"
        if len(gc) != len(wc):
            k = min(len(gc), len(wc))
            shown = _block_label(gc[k] if len(gc) > len(wc) else wc[k])
            if len(gc) > len(wc):
                return say(
                    "message {i}: an extra block at block {k} ({shown}); {n} blocks, expected {m}",
                    i=i,
                    k=k,
                    shown=shown,
                    n=len(gc),
                    m=len(wc),
                )
            return say(
                "message {i}: a block missing at block {k} ({shown}); {n} blocks, expected {m}",
                i=i,
                k=k,
                shown=shown,
                n=len(gc),
                m=len(wc),
            )
        return f"message {i}: {_field_fault(g, w)}"
    k = min(len(got), len(want))
    if len(got) > len(want):
        return say(
            "{n} messages returned, expected {m}: message {k} should not be there",
            n=len(got),
            m=len(want),
            k=k,
        )
    return say("{n} messages returned, expected {m}: message {k} is missing", n=len(got), m=len(want), k=k)


def _order_fault(got: list, want: list, got_id: object, want_id: object) -> str:
    """A result for the wrong call at a block: named as an order fault when the same results are there."""
    ids = [b.get("tool_use_id") for b in got if isinstance(b, dict)]
    wanted = [b.get("tool_use_id") for b in want if isinstance(b, dict)]
    if sorted(map(str, ids)) == sorted(map(str, wanted)):
        return say(
            "the result for {got} is here, expected the result for {want}: the same results in "
            "another order; give them in the order of the calls ({order})",
            got=got_id,
            want=want_id,
            order=", ".join(map(str, wanted)),
        )
    return say("the result for {got} is here, expected the result for {want}", got=got_id, want=want_id)


def assert_same_messages(got: object, want: object, case: str = "") -> None:
    """Raise AssertionError naming the first fault when ``got`` is not the list ``want``."""
    fault = explain_difference(got, want)
    if fault is not None:
        raise AssertionError(f"{case}: {fault}" if case else fault)


def run_cases(title: str, cases: Iterable[tuple[str, Case]]) -> CheckReport:
    """Run each case; an AssertionError fails it with its message, any other error names its type.

    Each case's name is shown in the current language (``translated``); the title when printed."""
    report = CheckReport(title)
    for english, case in cases:
        name = translated(english)
        try:
            case()
        except AssertionError as exc:
            report.results.append(CheckResult(name, False, str(exc) or say("assertion failed")))
        except NotImplementedError:
            report.results.append(CheckResult(name, False, say("not implemented yet")))
        except Exception as exc:  # noqa: BLE001 - a learner's bug is a failed check, not a crash
            where = traceback.extract_tb(exc.__traceback__)[-1]
            report.results.append(
                CheckResult(
                    name,
                    False,
                    say(
                        "raised {kind}: {error} (in {function}, {file} line {line})",
                        kind=type(exc).__name__,
                        error=exc,
                        function=where.name,
                        file=Path(where.filename).name,
                        line=where.lineno,
                    ),
                )
            )
        else:
            report.results.append(CheckResult(name, True))
    return report


LEARNER_MODULES = ("compaction.course.built", "compaction.course.scratch")  # the learner's own saved code


def package_code(fn: object, references: Iterable[object] = ()) -> str | None:
    """``module.name`` of ``fn`` when it is the package's code (one of ``references``, or defined in a
    ``compaction`` module other than the learner's saved ``LEARNER_MODULES``); None for the learner's own."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    if not callable(target):
        return None
    module = getattr(target, "__module__", None) or type(target).__module__
    name = getattr(target, "__qualname__", None) or type(target).__qualname__
    own = module in LEARNER_MODULES or not (module == "compaction" or module.startswith("compaction."))
    if own and not any(target is ref for ref in references):
        return None
    return f"{module}.{name}"


def _code_objects(code: CodeType) -> Iterable[CodeType]:
    """A code object and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_objects(const)


def _reachable(fn: Callable) -> Iterable[object]:
    """What ``fn``'s own code can name: its globals, attributes of modules it names (an import inside
    the function included), its closure's cells and its default arguments."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, CodeType):
        return
    names = {name for c in _code_objects(code) for name in c.co_names}
    scope = getattr(fn, "__globals__", {})
    for name in names:
        value = scope.get(name, sys.modules.get(name))  # a module imported inside fn is in sys.modules
        if value is None:
            continue
        yield value
        if isinstance(value, ModuleType):
            yield from (getattr(value, attr) for attr in names if hasattr(value, attr))
    yield from (cell.cell_contents for cell in getattr(fn, "__closure__", None) or () if _filled(cell))
    yield from getattr(fn, "__defaults__", None) or ()
    yield from (getattr(fn, "__kwdefaults__", None) or {}).values()


def _filled(cell: object) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises ValueError
    except ValueError:
        return False
    return True


def calls_package(fn: object, targets: Iterable[object]) -> str | None:
    """``module.name`` of a target (the package's function an answer must match) that the learner's
    ``fn`` calls, directly or through functions of the learner's own it calls; None when none."""
    targets = [t for t in targets if callable(t)]
    seen: set[int] = set()
    todo = [fn.func if isinstance(fn, functools.partial) else fn]
    while todo:
        current = todo.pop()
        if id(current) in seen or not callable(current) or package_code(current) is not None:
            continue
        seen.add(id(current))
        for value in _reachable(current):
            if any(value is target for target in targets):
                return f"{value.__module__}.{value.__qualname__}"
            if callable(value) and not isinstance(value, (type, ModuleType)):
                todo.append(value.func if isinstance(value, functools.partial) else value)
    return None


def refusing_package_code(
    check: Callable[..., CheckReport], references: Iterable[object] = (), targets: Iterable[object] = ()
) -> Callable:
    """``check`` that fails with one row when a function handed to it is the package's own code, or
    calls one of ``targets`` (the package's functions the answer must match) or a reference."""
    references = tuple(references)
    targets = (*references, *targets)

    @functools.wraps(check)
    def guarded(*args: object, **kwargs: object) -> CheckReport:
        for value in (*args, *kwargs.values()):
            found = package_code(value, references)
            if found is not None:
                detail = say("this is the package's {found}; write your own", found=found)
            elif (called := calls_package(value, targets)) is not None:
                detail = say(
                    "your {name} calls the package's {found}, the function it must match; write your own",
                    name=getattr(value, "__name__", "function"),
                    found=called,
                )
            else:
                continue
            title = check.__name__.removeprefix("check_")
            return CheckReport(title, [CheckResult(say("written by you"), False, detail)])
        return check(*args, **kwargs)

    return guarded


def for_exercise(topic: str) -> SimpleNamespace:
    """A topic's checks and sample data for an exercise notebook, without the references answers must match.

    Left out: every ``*_reference``, the names the topic lists in ``ANSWERS`` (a function that computes
    what the exercise asks for), and whatever the topic module imported from the package. Each check
    refuses the package's own code handed in as the answer, and an answer of the learner's that calls
    a reference or the package's function of the check's name (``check_strip_analysis``:
    ``strip_analysis``), directly or through a helper of the learner's (``refusing_package_code``).
    """
    module = importlib.import_module(f"{__name__}.{topic}")
    hidden = set(getattr(module, "ANSWERS", ()))
    shown = {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not name.endswith("_reference")
        and name not in hidden
        and name != "ANSWERS"
        and (
            getattr(value, "__module__", None) == module.__name__ or (name.isupper() and not callable(value))
        )
    }
    hidden_names = {n for n in vars(module) if n.endswith("_reference")} | hidden
    references = [vars(module)[n] for n in hidden_names if callable(vars(module).get(n))]
    for name, value in shown.items():
        if name.startswith("check_") and callable(value):
            target = vars(module).get(name.removeprefix("check_"))  # check_strip_analysis: strip_analysis
            targets = [target] if callable(target) and package_code(target) is not None else []
            shown[name] = refusing_package_code(value, references, targets)
    return SimpleNamespace(**shown)
