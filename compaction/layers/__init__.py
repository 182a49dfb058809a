"""The layers, one module each, in the order they run before a model call: budget, snip, micro, the
summary (with its request, restoration and pinned instructions), reactive compaction and its one
retry, and the triggers; and the other strategies' layers (recent turns, the server's summary). Each
layer is also a small value (``layer.Layer``: ``Budget``, ``Snip``, ``Micro``, ``Summary``,
``Reactive``, ``RecentTurns``, ``ServerSummary``) that owns its settings, its trigger and the function
it runs, and reads the pipeline only through ``layer.Shared``. Each imports only the core and the
layers before it. (The seed numbers them snip L1, micro L2, budget L3, summary L4, the order it
explains them in; ``compaction.pipeline.compactor`` says why they run in another.)
"""
