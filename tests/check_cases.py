"""What every exercise check must do, as two pytest tests built from a topic's cases.

A case is ``(check, package_answer, known_wrong_answers)``: the check passes the package's answer,
fails the untouched exercise stub (every row says "not implemented"), and rejects each wrong one:
at least one row fails on the check's own assertion. A wrong answer that only crashes (a row that
says "raised ...") proves nothing about the check, so it does not count as rejected.
"""

from __future__ import annotations

import pytest


def stub(*args, **kwargs):
    """An exercise as the learner first sees it."""
    raise NotImplementedError("replace this with your answer")


def crashed(detail: str) -> bool:
    """True for a row the answer failed by raising (or by being a stub), not by the check's assertion."""
    return detail.startswith("raised ") or detail == "not implemented yet"


def check_tests(cases: list) -> tuple:
    """The two tests for ``cases``; assign them to module names starting with ``test_``."""

    def name(value: object) -> str:
        return getattr(value, "__name__", "")

    @pytest.mark.parametrize(("check", "package", "wrongs"), cases, ids=name)
    def passes_the_package_and_fails_a_stub(check, package, wrongs):
        assert check(package).passed, str(check(package))
        report = check(stub)
        assert not report.passed and all("not implemented" in r.detail for r in report.failures)

    @pytest.mark.parametrize(
        ("check", "wrong"), [(check, wrong) for check, _, wrongs in cases for wrong in wrongs], ids=name
    )
    def rejects_known_wrong_answers(check, wrong):
        report = check(wrong)
        assert not report.passed, f"{name(wrong)} passed {name(check)}"
        rejected = [r for r in report.failures if not crashed(r.detail)]
        assert rejected, f"{name(wrong)} only crashed, the check rejected nothing: {report.failures}"

    return passes_the_package_and_fails_a_stub, rejects_known_wrong_answers
