"""No function of the package takes more than 12 parameters: what travels together is one value.

``self`` and ``cls`` are not counted; ``*args`` and ``**kwargs`` count one each. A function over the
limit groups its arguments (``Hooks`` for the agent loop's hooks, ``Ran`` for what a run produced, a
request's own options as ``**request``).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "compaction"
LIMIT = 12


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many parameters a function takes, ``self`` and ``cls`` left out."""
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    return len([n for n in names if n not in ("self", "cls")]) + bool(a.vararg) + bool(a.kwarg)


def test_no_function_takes_more_than_12_parameters():
    over = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}() takes {parameters(node)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and parameters(node) > LIMIT
    ]
    assert over == []


def test_the_count_leaves_out_self_and_counts_star_arguments_once():
    (node,) = ast.parse("def f(self, a, /, b, *rest, c, **options): pass").body
    assert parameters(node) == 5
