"""What a compacted context still knows, and at what cost: probes, strategies, replays, comparison.

``probes`` (questions and the evidence that answers them, from JSON files), ``find`` (probes found
in a session automatically), ``strategies`` (the designs compared), ``replay`` (one strategy over
one session, turn by turn), ``cost`` (prompt-cache pricing), ``compare`` (the table and its last
line) and ``grade`` (asking a real model the questions; never used by the tests).
"""
