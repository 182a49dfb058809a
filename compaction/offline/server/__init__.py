"""The offline model's server: the Messages API's side of a request (checks in the API's words,
context edits, caching, diagnostics, on-demand and server-side compaction, usage) and the loopback
HTTP server. It asks the scripted agent (``offline.scripted``) for each turn; never the reverse.
"""
