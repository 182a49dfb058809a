"""The offline model's scripted coding agent: its work plan, what it reads from a request, the
turn it plays next, and the extractive summarizer. Knows nothing of HTTP or of the server.
"""
