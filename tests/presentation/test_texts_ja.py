"""The Japanese texts: every check row a learner reads has one, none is stale, fields match the English.

Every check function of every module of ``compaction.course.checks`` runs under ``use_language("ja")``
with the package's answer, taken from the ``CASES`` of the tests of the checks (``test_checks_*.py``,
``test_replay_checks.py``); the English text behind every row name and title is recorded on its way
through ``translated``. A row name must have a Japanese entry (exact, or a template whose fields hold
figures or texts that have one); a title may stay English only when it is a function's name.
Every entry must still be printed: found among those names, or as a ``say()`` text in the package.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import string
import sys
from pathlib import Path
from types import ModuleType

import pytest

import compaction.course.checks as checks_package
from compaction.course.checks.micro import check_micro_keeping_edited, check_predicted_breaks
from compaction.course.notebooks import REPORT_LINE
from compaction.layers.micro import micro_compact
from compaction.presentation import language as lang
from compaction.presentation.language import say, translated, use_language
from compaction.presentation.texts_ja import TEXTS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "compaction"
CASE_FILES = sorted((ROOT / "tests" / "course").glob("test_checks_*.py")) + [
    ROOT / "tests" / "evaluate" / "test_replay_checks.py"
]
MODULES = sorted(m.name for m in pkgutil.iter_modules(checks_package.__path__))


def check_functions(module: str) -> dict[str, object]:
    """name -> the module's own ``check_*`` functions."""
    found = importlib.import_module(f"{checks_package.__name__}.{module}")
    return {
        name: value
        for name, value in vars(found).items()
        if name.startswith("check_") and callable(value) and value.__module__ == found.__name__
    }


def case_module(path: Path) -> ModuleType:
    """The test module at ``path``: the one pytest imported, else loaded from its file."""
    if path.stem in sys.modules:
        return sys.modules[path.stem]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def package_answers() -> dict[object, object]:
    """check function -> the package's answer to it, as the tests of the checks give it (first found)."""
    answers: dict[object, object] = {}
    for path in CASE_FILES:
        for check, answer, _wrongs in getattr(case_module(path), "CASES", []):
            answers.setdefault(check, answer)
    return answers


def fields(text: str) -> set[str]:
    """The ``{name}`` fields of a text."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def keys_behind(english: str) -> set[str]:
    """The TEXTS keys that translate ``english``: its entry and those of its fields' values."""
    found = lang.entry(english)
    if found is None:
        return set()
    key, values = found
    return {key}.union(*(keys_behind(value) for value in values.values()))


@pytest.fixture(scope="module")
def printed() -> dict[str, list[tuple[str, str]]]:
    """module -> every (kind, English text) its checks sent through ``translated``, run in Japanese."""
    answers = package_answers()
    seen: dict[str, list[tuple[str, str]]] = {}
    original = checks_package.translated

    for module in MODULES:
        texts = seen.setdefault(module, [])

        def recording(english: str, texts=texts) -> str:
            texts.append(english)
            return original(english)

        checks_package.translated = recording
        try:
            with use_language("ja"):
                for name, check in check_functions(module).items():
                    assert check in answers, (
                        f"{module}.{name} has no package answer in the CASES of the tests"
                    )
                    before = len(texts)
                    report = check(answers[check])
                    assert report.passed, f"{module}.{name} fails the package's answer: {report}"
                    report.summary()  # the title goes through translated too
                    texts[before:] = [("name", t) for t in texts[before:-1]] + [("title", texts[-1])]
        finally:
            checks_package.translated = original
    return seen


@pytest.mark.parametrize("module", MODULES)
def test_every_row_name_has_a_japanese_entry(printed, module):
    rows = [text for kind, text in printed[module] if kind == "name"]
    assert rows, f"no check of {module} printed a row"
    assert [text for text in rows if lang.entry(text) is None] == []
    with use_language("ja"):  # the same text again only where the entry keeps it (an API name: keep 0)
        assert [t for t in rows if lang.translated(t) == t and TEXTS.get(t) != t] == []


@pytest.mark.parametrize("module", MODULES)
def test_a_title_is_japanese_or_a_function_name(printed, module):
    titles = [text for kind, text in printed[module] if kind == "title"]
    assert [t for t in titles if lang.entry(t) is None and not t.isidentifier()] == []


def said_texts() -> set[str]:
    """Every text the package hands to ``say``: a literal, or the module-level string or dict it names."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = None
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "say" and node.args):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
                continue
            name = arg.value if isinstance(arg, ast.Subscript) else arg
            if isinstance(name, ast.Name):
                dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
                module = module or importlib.import_module(dotted)
                value = getattr(module, name.id)
                found.update(value.values() if isinstance(value, dict) else [value])
    return found


def test_say_texts_are_found_in_the_package():
    said = said_texts()
    assert {"all checks pass", "show more", "{verdict} {title}: {ok}/{total} checks passed"} <= said
    # legend.MEANINGS, handed over as say(MEANINGS[m])
    assert "≡ unchanged messages, folded: open to see them" in said


def test_every_say_text_has_a_japanese_entry():
    assert sorted(text for text in said_texts() if text not in TEXTS) == []


def test_no_entry_is_stale(printed):
    used = set(said_texts())
    for texts in printed.values():
        for _kind, text in texts:
            used |= keys_behind(text)
    assert sorted(set(TEXTS) - used) == []


@pytest.mark.parametrize("english", sorted(TEXTS))
def test_an_entry_has_the_fields_of_its_english(english):
    assert fields(TEXTS[english]) == fields(english)


def test_every_entry_is_japanese_or_kept_on_purpose():
    same = sorted(k for k, v in TEXTS.items() if k == v)
    # API names, error texts and settings stay English (ja/GLOSSARY.md)
    assert all(any(c in k for c in "_=0123456789") for k in same), same


def test_japanese_output_of_a_report_keeps_the_tokens_tools_parse():
    report = checks_package.CheckReport(
        "snip", [checks_package.CheckResult("ok", True), checks_package.CheckResult("x", False, "why")]
    )
    with use_language("ja"):
        text = str(report)
        assert text.splitlines()[0] == "FAIL snip: 1/2 件のチェックに合格"
        assert [line.split()[0] for line in text.splitlines()[1:]] == ["pass", "FAIL"]
        assert "<th>チェック</th><th>詳細</th>" in report._repr_html_()
    assert str(report).splitlines()[0] == "FAIL snip: 1/2 checks passed"
    assert say("check") == "check"


def test_the_report_line_reads_both_languages():
    assert REPORT_LINE.match("PASS validate: 7/7 checks passed")
    assert REPORT_LINE.match("FAIL snip: 1/2 件のチェックに合格")
    assert not REPORT_LINE.match("FAIL snip: 1/2 checks")


def test_check_functions_take_one_answer():
    # the runs above hand each check one function; a check wanting more would need this test changed
    for module in MODULES:
        for name, check in check_functions(module).items():
            required = [
                p
                for p in inspect.signature(check).parameters.values()
                if p.default is inspect.Parameter.empty
            ]
            assert len(required) == 1, f"{module}.{name}"


def test_a_failing_micro_check_explains_in_japanese_and_keeps_its_english():
    def ignores_edits(messages, keep_recent=3, min_chars=120, recent_turns=5):
        return micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)

    def details(check, answer):
        return [r.detail for r in check(answer).results if not r.passed]

    english = details(check_micro_keeping_edited, ignores_edits)
    assert english, "a micro that ignores edits must fail"
    why = "should stay whole: an edit_file of 'calc.py' is in the last 5 assistant turns."
    what = "the read_file result 'toolu_02' (message 4) of 'calc.py'"
    assert any(d.endswith(f" Why: {what} {why}") for d in english)
    assert details(check_predicted_breaks, lambda turns, keep: 0)[0] == (
        "20 calls, two new results each, keep_recent=3: predicted 0, measured 19 cache breaks"
    )
    with use_language("ja"):
        japanese = details(check_micro_keeping_edited, ignores_edits)
        predicted = details(check_predicted_breaks, lambda turns, keep: 0)[0]
    assert len(japanese) == len(english)
    assert not any(" Why:" in d for d in japanese)
    assert any(
        "理由: 'calc.py' の read_file の結果 'toolu_02'（メッセージ 4）はそのまま残すべきです。"
        "直近 5 回のアシスタントのターンの中に 'calc.py' の edit_file があります。" in d
        for d in japanese
    )
    assert predicted == (
        "呼び出し 20 回、毎回新しい結果 2 件、keep_recent=3: 予測は 0、実測のキャッシュブレークは 19 回"
    )


def test_every_say_call_gives_exactly_the_fields_of_its_text():
    # a missing field would raise KeyError only when a check fails, in the learner's table
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "say" and node.args):
                continue
            arg = node.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                continue
            given = {k.arg for k in node.keywords}
            if None not in given and given and given != fields(arg.value):
                wrong.append((path.name, node.lineno, sorted(given ^ fields(arg.value))))
            if not given and fields(arg.value):
                wrong.append((path.name, node.lineno, sorted(fields(arg.value))))
    assert wrong == []


def test_figures_in_a_translated_row_are_never_read_as_a_template():
    with use_language("ja"):
        row = translated("course session 1 with requests at [22, 42]")
    assert row.endswith("[22, 42] に依頼あり")  # not "[22、42]": "{kept}, {cleared}" must not split a list
