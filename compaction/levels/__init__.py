"""The compression levels: condensed tool outputs (1), phase summaries (2), session checkpoints (3),
and the signals that say when to compact.

``condense`` and ``locations`` shrink one tool output while keeping every path and line number;
``phases`` finds where a phase of work ends and ``phase_summary`` writes its short summary;
``checkpoint`` saves a whole session as Markdown and resumes from it; ``signals`` and
``session_map`` watch a session for the moments to act. Deliberately left out: the layers
themselves (``compaction.layers.budget``, ``snip``, ``micro``, ``summarize``), which these build on.
"""
