"""Figures for the course: pipeline overhead, token counters, strategies, the course itself."""
