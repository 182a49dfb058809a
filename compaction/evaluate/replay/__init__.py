"""Replay recorded sessions through the compaction strategies: engine, report, redaction, command.

``engine.replay`` runs one strategy over one imported session; ``report.write_report`` writes the
HTML report; ``redact.redact`` hides key-shaped strings; ``command`` is ``compaction replay``.
"""
