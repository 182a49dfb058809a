"""The shortcuts that keep probe finding and scoring linear give the answers of the regexes they skip.

``find_probes`` runs its error-line and test-summary patterns only on outputs that hold a word each
match needs; ``normalized`` collapses whitespace with ``str.split``, which must agree with the
regex ``\\s+`` it replaced on every character; a read_file line number is only stripped from an
output with a tab in it.
"""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.evaluate.find import ERROR_LINE, ERROR_WORDS, TEST_SUMMARY
from compaction.evaluate.probes import _NUMBERED, normalized

FRAGMENTS = st.sampled_from(
    ["Error", "Exception", "FAILED", "ERROR", "error", "Traceback", "ValueError", "pkg.mod.", " ", ":", ": ",
     "\n", "\t", "  12\t", "3 passed", ", 1 failed", "pass", "ed", "fail", "x", "Err", "or", "Trace", "back"]
)  # fmt: skip
TEXTS = st.lists(FRAGMENTS, max_size=30).map("".join)


@settings(max_examples=2_000, deadline=None)
@given(TEXTS)
def test_an_output_without_the_words_has_no_error_line_and_no_test_summary(text):
    if ERROR_LINE.findall(text):
        assert any(word in text for word in ERROR_WORDS)
    if TEST_SUMMARY.search(text):
        assert "passed" in text or "failed" in text
    if _NUMBERED.search(text):
        assert "\t" in text


def test_split_and_the_regex_agree_on_every_whitespace_character():
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert [c for c in spaces if not re.fullmatch(r"\s", c)] == []
    assert all(not re.fullmatch(r"\s", chr(c)) for c in range(sys.maxunicode + 1) if not chr(c).isspace())
    text = "  A" + "".join(spaces) + "b \u3000C\n"
    assert normalized(text) == re.sub(r"\s+", " ", text).strip().lower() == "a b c"
