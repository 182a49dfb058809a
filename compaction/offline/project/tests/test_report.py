"""Tests of textstats.report."""

from textstats.report import build_report, format_markdown, format_report

TEXT = "The cat sat on the mat. The cat ran.\n\nA dog barked."


def test_report_counts():
    report = build_report(TEXT)
    assert report["paragraphs"] == 2
    assert report["sentences"] == 3
    assert report["words"] == 12


def test_report_top_words_skip_stopwords():
    report = build_report(TEXT, top=1)
    assert report["top_words"] == [["cat", 2]]


def test_format_report_aligns_labels():
    text = format_report(build_report(TEXT), title="T")
    lines = text.splitlines()
    assert lines[:2] == ["T", "="]
    assert lines[2].startswith("paragraphs           2")


def test_format_markdown_is_a_table():
    lines = format_markdown(build_report(TEXT), title="T").splitlines()
    assert lines[:4] == ["## T", "", "| statistic | value |", "|---|---|"]
    assert lines[4] == "| paragraphs | 2 |"
