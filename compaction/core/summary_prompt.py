"""The summary prompt: what a production summary asks for, in nine sections.

The prompt forbids tool calls at its start and again at its end, asks for an ``<analysis>`` first
and the summary inside ``<summary>`` tags. It lives in the core because the summary layer sends it
and the offline model recognises and answers it. Deliberately left out: sending it (``summarize``)
and cutting the request to fit (``summary_request``).
"""

from __future__ import annotations

NO_TOOLS_HEAD = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."

SECTIONS = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
)

_SECTION_LINES = "\n".join(f"{i}. {name}:" for i, name in enumerate(SECTIONS, 1))

SUMMARY_PROMPT = f"""{NO_TOOLS_HEAD}

The conversation above is about to be removed from your context. Write the summary that will
replace it, so that you can carry on the work without the original messages.

First think inside <analysis> tags: go through the conversation in order and note what the user
asked for, what you did, which files you read or changed, which errors came up and how they were
fixed, and what was happening at the very end. Then write the summary inside <summary> tags, with
exactly these numbered sections:

{_SECTION_LINES}

Quote the user's own words in section 6, name files with their paths, and keep error messages
verbatim but short. In section 9 give only a step that follows directly from the current work.

REMINDER: answer with plain text only. Any tool call will be rejected and waste this turn."""


def summary_prompt(focus: str | None = None) -> str:
    """The summary prompt, with the focus line (if any) before its closing reminder."""
    if not focus or not focus.strip():
        return SUMMARY_PROMPT
    head, reminder = SUMMARY_PROMPT.rsplit("\n\nREMINDER:", 1)
    return f"{head}\n\nFocus the summary on: {focus.strip()}\n\nREMINDER:{reminder}"
