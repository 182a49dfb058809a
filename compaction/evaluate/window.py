"""The window a recorded session is replayed in when none is given: one rule for every command.

A recorded session was written in its agent's own window, usually far larger than the session
(200,000 tokens and more), where no compaction layer would ever fire. ``replay_window`` gives a
window in which compaction has work to do: a third of the session's tokens, but never under
4,000, and always room for twice the first message (the task must fit with room to work).
``compaction replay``, ``compaction evaluate --session``, the real-session table and chapter 00's
replay of the learner's own session all use it. Deliberately left out: the recorded agent's own
window and any per-format rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from compaction.core.tokens import estimate_tokens

SMALLEST = 4_000  # tokens: below this even the task and a few results do not fit
RULE = "a third of the session's tokens, at least 4,000 and twice its first message"


def replay_window(messages: Sequence[dict]) -> int:
    """A third of the session, but room for twice its first message (the task must fit) and 4,000."""
    first = estimate_tokens(list(messages[:1]), "tiktoken")
    return max(SMALLEST, estimate_tokens(list(messages), "tiktoken") // 3, 2 * first)
