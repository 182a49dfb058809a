"""An exercise's checks refuse the package's own code handed in as the learner's answer."""

from __future__ import annotations

import functools

from compaction.course import built
from compaction.course.checks import for_exercise, package_code
from compaction.course.checks import snip as checks_snip
from compaction.course.checks.pipeline import reserve_from_answers as reserve_under_another_name
from compaction.layers.restore import choose_restores as my_choice
from compaction.layers.summarize import SummaryFailed, extract_summary
from compaction.layers.summarize import strip_analysis as package_strip
from compaction.levels.phases import detect_phases as phase_ends

REFUSED = "this is the package's {}; write your own"


def refused_row(report, name: str) -> bool:
    return not report.passed and [(r.name, r.detail) for r in report.results] == [
        ("written by you", REFUSED.format(name))
    ]


def test_a_reference_imported_under_another_name_fails_with_a_row_naming_it():
    report = for_exercise("restore").check_choose_restores(my_choice)
    assert refused_row(report, "compaction.layers.restore.choose_restores")
    report = for_exercise("pipeline").check_reserve_from_answers(reserve_under_another_name)
    assert refused_row(report, "compaction.course.checks.pipeline.reserve_from_answers")
    report = for_exercise("levels").check_phase_ends(phase_ends)
    assert refused_row(report, "compaction.levels.phases.detect_phases")


def test_the_package_code_wrapped_in_a_partial_is_refused_too():
    wrapped = functools.partial(my_choice)
    assert package_code(wrapped) == "compaction.layers.restore.choose_restores"


def test_the_same_object_as_a_reference_is_refused_wherever_it_is_defined():
    def learners():
        return []

    assert package_code(learners) is None
    assert package_code(learners, references=[learners]) is not None


def test_a_function_the_learner_wrote_is_checked_as_before():
    def choose_restores(reads, budget, per_file):  # the learner's own, wrong on purpose
        return []

    report = for_exercise("restore").check_choose_restores(choose_restores)
    assert report.results and all(r.name != "written by you" for r in report.results)
    assert not report.passed  # the cases ran and found it wrong


def test_a_function_saved_to_built_is_the_learners_and_is_accepted():
    assert package_code(built.budget) is None
    assert package_code(built.snip) is None
    report = for_exercise("budget").check_budget(built.budget)  # chapter 03's budget, saved by #@save
    assert report.passed, str(report)


def test_data_handed_to_a_check_is_not_screened():
    assert package_code([1, 2]) is None and package_code("compaction.layers") is None


# ---------------------------------------------------------------- a function of the learner's that calls it

CALLS = "your {} calls the package's {}, the function it must match; write your own"


def test_a_def_that_calls_the_package_function_is_refused_with_a_row_naming_it():
    def strip_analysis(answer):
        return package_strip(answer)

    report = for_exercise("summarize").check_strip_analysis(strip_analysis)
    assert [(r.name, r.detail) for r in report.results] == [
        ("written by you", CALLS.format("strip_analysis", "compaction.layers.summarize.strip_analysis"))
    ]


def test_an_import_inside_the_def_or_a_helper_of_the_learners_is_followed():
    def imports_it(answer):
        from compaction.layers.summarize import strip_analysis

        return strip_analysis(answer)

    def helper(answer):
        return package_strip(answer)

    def through_a_helper(answer):
        return helper(answer).strip()

    check = for_exercise("summarize").check_strip_analysis
    for answer in (imports_it, through_a_helper, lambda answer: package_strip(answer)):
        report = check(answer)
        assert not report.passed and report.results[0].name == "written by you", report
    report = for_exercise("snip").check_snip_to_tokens(
        lambda messages, max_tokens, keep_head=3, method="tiktoken": checks_snip.snip_to_tokens_reference(
            messages, max_tokens, keep_head, method
        )
    )
    assert report.results[0].name == "written by you", report  # a reference reached through a module


def test_other_package_helpers_stay_allowed():
    def summary_from_blocks(content):  # the exercise asks for extract_summary: it is no target
        if any(block.get("type") == "tool_use" for block in content):
            raise SummaryFailed("a tool call")
        joined = "".join(block["text"] for block in content if block.get("type") == "text")
        if not joined.strip():
            raise SummaryFailed("no text")
        return extract_summary(joined)

    report = for_exercise("summarize").check_summary_from_blocks(summary_from_blocks)
    assert report.passed, str(report)
