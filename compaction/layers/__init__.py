"""The layers, one module each, in the order they run before a model call: budget (L3), snip (L1),
micro (L2), the summary (L4, with its request, restoration and pinned instructions), reactive
compaction and its one retry, and the triggers. Each layer is also a small value (``layer.Layer``:
``Budget``, ``Snip``, ``Micro``, ``Summary``, ``Reactive``) that owns its settings, its trigger and
the function it runs. Each imports only the core and ``layer``.
"""
