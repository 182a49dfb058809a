"""The legend under a view: what each highlight, mark and column means."""

from __future__ import annotations

from compaction.presentation.language import say
from compaction.presentation.palette import CHANGES, ROLES

SWATCH = "display:inline-block;width:10px;height:10px;margin-right:3px;border:1px solid {}"
MEANINGS = {  # mark -> what it means
    "placeholder": "holds a placeholder, marker or summary: its own words under the row",
    "changed": "changed by the pass: the placeholder's or marker's own words below, tokens before → after",
    "dropped": "✂ dropped: messages that left the context, how many, their tokens, and where they went",
    "added": "new: a message the pass wrote (a summary)",
    "collapsed": "≡ unchanged messages, folded: open to see them",
}
BARS = "bars: a message's tokens, one scale for the whole view (faded: before the pass)"
NUMBERS = "numbers: the message's place in the list before the pass; tokens in {unit}"
ERROR_MARK = "after {name}: the tool reported an error (is_error)"
OPEN_ROW = "▸ click a row to read its content"


def legend_html(
    marks: tuple[str, ...] = ("changed", "dropped", "added", "collapsed"), unit: str = "tiktoken cl100k"
) -> str:
    """The legend of a view: the marks it can show, the roles, the ``!`` suffix, bars and opening rows."""
    items = [
        f"<span style='white-space:nowrap'><span style='{SWATCH.format(ROLES['other'])};"
        f"background:{CHANGES.get(m, CHANGES['changed'])}'>"
        f"</span>{say(MEANINGS[m])}</span>"
        for m in marks
    ]
    items += [
        f"<span style='white-space:nowrap'><span style='color:{ROLES['user']}'>■ user</span> "
        f"<span style='color:{ROLES['assistant']}'>■ assistant</span></span>",
        f"<span>{say(BARS)}</span>",
        f"<span>{say(NUMBERS, unit=unit)}</span>",
        f"<span><b>!</b> {say(ERROR_MARK, name='<code>tool_result:name</code>')}</span>",
        f"<span>{say(OPEN_ROW)}</span>",
    ]
    return (
        "<div class='compaction-legend' style='font:11px sans-serif;display:flex;flex-wrap:wrap;"
        f"gap:2px 16px;margin:4px 0'>{''.join(items)}</div>"
    )
