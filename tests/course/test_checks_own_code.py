"""An exercise's checks refuse the package's own code handed in as the learner's answer."""

from __future__ import annotations

import functools

from compaction.course import built
from compaction.course.checks import for_exercise, package_code
from compaction.course.checks.pipeline import reserve_from_answers as reserve_under_another_name
from compaction.layers.restore import choose_restores as my_choice
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
