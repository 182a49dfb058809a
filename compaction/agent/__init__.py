"""The agent: its loop (``loop``), its tools confined to a workspace, the shell runner, ``connect()``
(``backend``), long sessions (``session``) and the API's own context management (``server_side``).
"""
