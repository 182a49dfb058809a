"""The Japanese text of every English sentence the package prints for a learner, keyed by the English.

``compaction.core.language.say`` looks a text up here when the language is ``ja``; a ``{name}``
field stays as it is, in the place Japanese puts it. API names, field names and error texts stay
English, in backquotes where the English has them. One entry per English text, in the order of the
modules that print them.
"""

from __future__ import annotations

TEXTS: dict[str, str] = {
    # compaction.course.checks: the check table's frame
    "{verdict} {title}: {ok}/{total} checks passed": "{verdict} {title}: {ok}/{total} 件のチェックに合格",
    "check": "チェック",
    "detail": "詳細",
}
