"""The pipeline: ``compactor.Compactor`` runs the layers before every model call; ``recent_turns`` is
the other design (only the last N turns). Imports the layers and the core.
"""
