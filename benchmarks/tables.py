"""Plain-text tables for benchmark figures: aligned columns, numbers right-aligned."""

from __future__ import annotations

from collections.abc import Sequence


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Render rows under a header as an aligned text table with a title line."""
    cells = [[str(c) for c in header]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(_is_num(row[i]) for row in rows) if rows else False for i in range(len(header))]

    def line(row: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(row, widths, numeric, strict=True)
        )

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([title, line(cells[0]), rule, *(line(r) for r in cells[1:])])


def _is_num(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)
