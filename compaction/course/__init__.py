"""The course machinery, on top of the package: exercise checks, exercises built from solutions,
notebooks run and checked.

``checks`` holds one module of checks per topic; ``exercises`` generates ``exercises/`` from
``solutions/``; ``notebooks`` runs a notebook and reads its check reports;
``python -m compaction.course`` is the command line. Nothing in the runtime package imports this.
"""
