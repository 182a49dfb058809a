"""The core: the Messages API shape and its validator, tokens, the store, transcripts, placeholders,
events, errors and guards. Imports nothing else of the package; every other tier builds on it.
"""
