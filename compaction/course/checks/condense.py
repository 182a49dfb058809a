"""Checks for chapter 11's exercise: a condenser for a Python traceback, a kind chapter 11 does not cover.

``sample_traceback`` writes a seeded traceback the way CPython prints one: a chain of two
exceptions ("During handling of the above exception, another exception occurred:"), frames in the
project and in site-packages, each frame's source line under it, and a recursion that repeats one
frame many times; one case raises its two exceptions in an order that is not alphabetical, so a
condenser that sorts them fails. ``check_condense_traceback`` asks of a learner's condenser what
level 1 asks of any condensed output: every exception line kept word for word, every file and line number kept
(``compaction.levels.locations.missing_references`` finds nothing lost), and far fewer tokens; a
short traceback may stay as it is. Deliberately left out: other languages' stack traces.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from compaction.core.tokens import count_text
from compaction.course.checks import CheckReport, run_cases
from compaction.levels.locations import missing_references
from compaction.presentation.language import say

EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b.*$", re.M)
_PROJECT = ("src/shop/cart.py", "src/shop/pricing.py", "src/shop/tax.py", "src/shop/api.py")
_LIBRARY = (
    ".venv/lib/python3.11/site-packages/requests/sessions.py",
    ".venv/lib/python3.11/site-packages/urllib3/connectionpool.py",
    ".venv/lib/python3.11/site-packages/flask/app.py",
)
_LIBRARY_CODE = (
    "resp = self.send(prep, **send_kwargs)",
    "rv = self.dispatch_request()",
    "return self.urlopen(url)",
)
_PROJECT_CODE = (
    "total = price(item) * qty",
    "return walk(node.children[0], depth + 1)",
    "rate = RATES[region]",
)


def _frame(rng: random.Random, path: str, function: str) -> list[str]:
    code = rng.choice(_LIBRARY_CODE if "site-packages" in path else _PROJECT_CODE)
    return [f'  File "{path}", line {rng.randint(5, 400)}, in {function}', f"    {code}"]


FIRST_ERROR = "KeyError: 'region-eu-west-3'"
SECOND_ERROR = "shop.errors.PricingError: no tax rate for region-eu-west-3 (cart 81723)"


def sample_traceback(
    *, seed: int = 0, depth: int = 120, errors: tuple[str, str] = (FIRST_ERROR, SECOND_ERROR)
) -> str:
    """A chained traceback of about ``2 * depth + 30`` lines raising ``errors``; the same for one seed."""
    rng = random.Random(seed)
    first = ["Traceback (most recent call last):"]
    for _ in range(6):
        first += _frame(rng, rng.choice(_LIBRARY), rng.choice(("send", "urlopen", "full_dispatch_request")))
    first += _frame(rng, "src/shop/api.py", "checkout")
    walk = _frame(rng, "src/shop/cart.py", "walk")
    first += walk * depth  # a recursion: the same frame again and again
    first += _frame(rng, "src/shop/tax.py", "rate_for")
    first.append(errors[0])
    second = ["", "During handling of the above exception, another exception occurred:", ""]
    second.append("Traceback (most recent call last):")
    second += _frame(rng, "src/shop/api.py", "handle")
    second += _frame(rng, "src/shop/pricing.py", "fallback_rate")
    second.append(errors[1])
    return "\n".join(first + second)


def short_traceback() -> str:
    """A traceback of six lines: nothing to gain by condensing it."""
    return "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "run_tests.py", line 12, in <module>',
            "    main()",
            '  File "textstats/counts.py", line 27, in top_words',
            "    return sorted(counts, key=counts.get)[:n]",
            "TypeError: '<' not supported between instances of 'NoneType' and 'int'",
        ]
    )


TRACEBACKS = {  # each sample's key -> the name a failing row gives it, said in the reader's language
    "seed 0": "the chained traceback (seed 0)",
    "seed 1": "a deeper one (seed 1)",
    "short": "a short one",
    "seed 2": "exceptions not in alphabetical order (seed 2)",
}


def check_condense_traceback(fn: Callable[[str], str]) -> CheckReport:
    """``fn(output)``: every exception line and every file:line kept, far fewer tokens on a long one."""
    outputs = {
        "seed 0": sample_traceback(seed=0),
        "seed 1": sample_traceback(seed=1, depth=300),
        "short": short_traceback(),
        "seed 2": sample_traceback(
            seed=2,
            errors=(
                "ValueError: quantity must be positive, got -2",
                "AttributeError: 'Cart' has no 'refund'",
            ),
        ),
    }
    results: dict[str, str] = {}

    def condensed(name: str) -> str:
        if name not in results:
            got = fn(outputs[name])
            assert isinstance(got, str), say(
                "{name}: returned {kind}, expected a string",
                name=say(TRACEBACKS[name]),
                kind=f"{type(got).__name__}",
            )
            results[name] = got
        return results[name]

    def exceptions_kept():
        for name, output in outputs.items():
            got = condensed(name)
            lines = set(got.splitlines())
            for line in EXCEPTION_LINE.findall(output):
                assert line in lines, say(
                    "{name}: the exception line {line} is not kept as a line of its own",
                    name=say(TRACEBACKS[name]),
                    line=f"{line[:60]!r}",
                )

    def order_kept():
        for name, output in outputs.items():
            lines, wanted, at = condensed(name).splitlines(), EXCEPTION_LINE.findall(output), -1
            for k, line in enumerate(wanted, 1):
                where = {"name": say(TRACEBACKS[name]), "k": k, "n": len(wanted), "line": f"{line[:60]!r}"}
                assert line in lines[at + 1 :], (
                    say(
                        "{name}: exception {k} of {n} ({line}) is missing or out of order; keep them in the"
                        " order the traceback raised them, not sorted",
                        **where,
                    )
                    if line in lines
                    else say("{name}: exception {k} of {n} ({line}) is missing", **where)
                )
                at = lines.index(line, at + 1)

    def locations_kept():
        for name, output in outputs.items():
            lost = missing_references(output, condensed(name))
            assert not lost, say(
                "{name}: {n} file:line references lost, the first {lost}",
                name=say(TRACEBACKS[name]),
                n=f"{len(lost)}",
                lost=f"{lost[:3]}",
            )

    def shorter():
        for name in [n for n in outputs if n != "short"]:
            before, after = count_text(outputs[name], "tiktoken"), count_text(condensed(name), "tiktoken")
            assert after <= 0.3 * before, say(
                "{name}: {before} -> {after} tokens, {value} fewer; 70% is the goal",
                name=say(TRACEBACKS[name]),
                before=f"{before:,}",
                after=f"{after:,}",
                value=f"{1 - after / before:.0%}",
            )

    def short_stays_readable():
        got, output = condensed("short"), outputs["short"]
        assert count_text(got, "tiktoken") <= count_text(output, "tiktoken") + 20, say(
            "a six-line traceback grew by more than 20 tokens; return a short output unchanged"
        )

    return run_cases(
        "condense_traceback",
        [
            ("every exception line kept word for word", exceptions_kept),
            ("the chained exceptions in their order", order_kept),
            ("every file and line number kept", locations_kept),
            ("at least 70% fewer tokens on a long traceback", shorter),
            ("a short traceback does not grow", short_stays_readable),
        ],
    )
