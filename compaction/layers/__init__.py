"""The layers, one module each, in the order they run before a model call: budget (L3), snip (L1),
micro (L2), the summary (L4, with its request, restoration and pinned instructions), reactive
compaction and its one retry, and the triggers. Each imports only the core.
"""
