"""The two ways compaction can fail, as exceptions every part of the package shares.

``SummaryFailed`` is raised by the summary layer when no summary could be made (the reason says
why; the transcript, when one was written, holds everything). ``ReactiveCompactFailed`` is raised
when a refused request could not be rescued by one reactive compaction and one retry. The input
list is never changed by a failure. Deliberately left out: errors of the API itself, which the SDK
raises (see ``compaction.core.api_errors``).
"""

from __future__ import annotations

from pathlib import Path

from compaction.core.api_errors import is_prompt_too_long


class SummaryFailed(RuntimeError):
    """The summary could not be made; ``reason`` says why, ``transcript`` is the saved history."""

    def __init__(self, reason: str, transcript: Path | None = None):
        self.reason = reason
        self.transcript = transcript
        where = f" (the full history is in {transcript})" if transcript else ""
        super().__init__(f"summary failed: {reason}{where}")


class ReactiveCompactFailed(SummaryFailed):
    """The loop could not rescue a refused request; the transcript (if any) holds everything."""

    def __init__(self, transcript: Path | None, error: BaseException):
        self.error = error
        what = "the prompt is still too long" if is_prompt_too_long(error) else "reactive compaction failed"
        where = (
            f"the full history is in the transcript {transcript}" if transcript else "the list is unchanged"
        )
        SummaryFailed.__init__(self, f"{what} ({error})", transcript)
        RuntimeError.__init__(self, f"{what} after one reactive compaction ({error}); {where}")
