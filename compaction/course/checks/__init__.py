"""Exercise checks: run a learner's function against named cases and show a pass/fail table.

Each topic has a module here (``compaction.course.checks.messages``, ``.snip``, ...) whose ``check_*``
functions take the learner's implementation and return a ``CheckReport``. A case is a small
function that raises ``AssertionError`` with a readable reason when the implementation is wrong.
The same reports drive the notebooks (a table) and pytest (``report.passed``). Deliberately left
out: timing limits and sandboxing; a check runs the learner's code in the learner's own kernel.
"""

from __future__ import annotations

import html
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


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
        return f"{verdict} {self.title}: {ok}/{len(self.results)} checks passed"

    def __str__(self) -> str:
        width = max((len(r.name) for r in self.results), default=4)
        lines = [self.summary()]
        for r in self.results:
            mark = "pass" if r.passed else "FAIL"
            lines.append(f"  {mark}  {r.name:<{width}}  {r.detail}".rstrip())
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
            f"<table><tr><th></th><th>check</th><th>detail</th></tr>{rows}</table></div>"
        )


Case = Callable[[], None]


def run_cases(title: str, cases: Iterable[tuple[str, Case]]) -> CheckReport:
    """Run each case; an AssertionError fails it with its message, any other error names its type."""
    report = CheckReport(title)
    for name, case in cases:
        try:
            case()
        except AssertionError as exc:
            report.results.append(CheckResult(name, False, str(exc) or "assertion failed"))
        except NotImplementedError:
            report.results.append(CheckResult(name, False, "not implemented yet"))
        except Exception as exc:  # noqa: BLE001 - a learner's bug is a failed check, not a crash
            where = traceback.extract_tb(exc.__traceback__)[-1]
            report.results.append(
                CheckResult(name, False, f"raised {type(exc).__name__}: {exc} (line {where.lineno})")
            )
        else:
            report.results.append(CheckResult(name, True))
    return report
