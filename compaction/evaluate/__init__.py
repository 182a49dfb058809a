"""What a compacted context still knows, and at what cost: probes, strategies, replays, comparison.

``probes`` (questions and the evidence that answers them, from JSON files), ``find`` (probes found
in a session automatically), ``strategies`` (the designs compared), ``replay`` (one strategy over
one session, turn by turn) with ``recording`` (what it watches), ``cost`` (prompt-cache pricing),
``compare`` (the table, the goal and the last line), ``frontier`` (cost against probes kept, as a
plot), ``grade`` (asking a real model the questions; never used by the tests) and ``cli``.
"""
