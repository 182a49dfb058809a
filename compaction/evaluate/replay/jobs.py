"""Work on several processes, shown as one process would show it: results in order, output captured.

``in_order(work, items, jobs)`` runs ``work(item)`` for every item on ``jobs`` worker processes and
yields the results in the items' order, each as soon as it and those before it are done (a slow
first item holds back the showing of the next ones, never their work). A worker prints into a
``Captured``: what went to stdout and what went to stderr, chunk by chunk in the order it was
written, which the parent writes out again (``write``), so the terminal shows what one process
would have shown. A worker is a fork of this process when the system forks and this process runs
no other thread (it starts with what is imported already; a fork of a process with threads may
inherit a lock held for good), else a fresh interpreter (spawn). ``cores()`` is how many
processors this process may run on. Deliberately left out: splitting one item between processes,
and sharing memory.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
Chunks = list[tuple[bool, str]]  # (written to stderr, the text), in the order written


def cores() -> int:
    """The processors this process may run on (its CPU affinity where the system says), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def in_order(work: Callable[[Item], Result], items: Sequence[Item], jobs: int) -> Iterator[Result]:
    """``work(item)`` for each item on ``jobs`` processes, yielded in the items' order."""
    forks = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    context = multiprocessing.get_context("fork" if forks else "spawn")
    with context.Pool(processes=max(1, min(jobs, len(items)))) as pool:  # terminated on the way out
        yield from pool.imap(work, items, chunksize=1)


class Captured:
    """What a process printed on stdout (``out``) and stderr (``err``), as ``chunks`` in order."""

    def __init__(self) -> None:
        self.chunks: Chunks = []
        self.out: TextIO = _Stream(self.chunks, stderr=False)
        self.err: TextIO = _Stream(self.chunks, stderr=True)


def write(chunks: Chunks, out: TextIO, err: TextIO) -> None:
    """Write captured ``chunks`` again, each to the stream it was written to, in order."""
    for to_err, text in chunks:
        (err if to_err else out).write(text)
    out.flush()
    err.flush()


class _Stream(io.TextIOBase):
    """A text stream that appends what is written to a shared list of chunks."""

    def __init__(self, chunks: Chunks, *, stderr: bool):
        super().__init__()
        self._chunks, self._stderr = chunks, stderr

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
        text = str(text)
        if text:
            self._chunks.append((self._stderr, text))
        return len(text)
