"""Running one shell command for the agent: clean environment, timeout, bounded output.

``run_shell`` starts ``bash -c`` in its own process group with a minimal environment (no variable
whose name holds KEY, TOKEN or SECRET; this Python first on PATH), reads its output while it runs
keeping only a bounded head and tail (a command that prints forever cannot fill memory), and kills
the whole group when the timeout passes. ``cap_output`` cuts the middle of a long output and says
how much it cut. Deliberately left out: confinement; a command can still reach outside its folder.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

OUTPUT_CAP = 30_000  # characters kept, half from the head and half from the tail
ENV_KEEP = ("PATH", "TERM")
SECRET_WORDS = ("KEY", "TOKEN", "SECRET")


def clean_env() -> dict[str, str]:
    """A minimal environment: a few variables, no secrets, this Python first on PATH."""
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "/usr/bin:/bin")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ folders appearing in the workspace
    # the same bytes on every machine: one locale (sort order, messages), one time zone
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC")
    return {k: v for k, v in env.items() if not any(w in k.upper() for w in SECRET_WORDS)}


def cap_output(text: str, cap: int = OUTPUT_CAP, *, dropped: int = 0, split: int | None = None) -> str:
    """Keep the head and tail of a long output, with a note of how many characters were cut.

    ``dropped`` characters are already missing at position ``split`` (between head and tail).
    """
    if len(text) + dropped <= cap:
        return text
    half = cap // 2
    split = len(text) // 2 if split is None else split
    head, tail = text[:split], text[split:]
    cut = max(len(head) - half, 0) + dropped + max(len(tail) - half, 0)
    return f"{head[:half]}\n[... {cut:,} characters cut from the middle of this output ...]\n{tail[-half:]}"


class _Capture(threading.Thread):
    """Reads a stream to its end, keeping the first and the last ``keep`` bytes."""

    def __init__(self, stream, keep: int):
        super().__init__(daemon=True)
        self.stream, self.keep = stream, keep
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def run(self) -> None:
        while chunk := self.stream.read1(1 << 16):
            self.total += len(chunk)
            room = self.keep - len(self.head)
            self.head += chunk[:room]
            self.tail += chunk[max(room, 0) :]
            del self.tail[: max(len(self.tail) - self.keep, 0)]

    def text(self, cap: int) -> str:
        """What was read, decoded and capped."""
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        dropped = self.total - len(self.head) - len(self.tail)  # bytes never kept, counted as chars
        if not dropped:
            return cap_output(head + tail, cap)
        return cap_output(head + tail, cap, dropped=dropped, split=len(head))


def exited_within(proc: subprocess.Popen, timeout: float) -> bool:
    """Whether ``proc`` exits within ``timeout`` seconds, woken the moment it does where Linux can.

    ``Popen.wait(timeout=...)`` polls with sleeps of up to 50 ms, which a 10 ms command pays in
    full; a pidfd becomes readable when the process exits.
    """
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux (or too old a kernel): Popen's own polling
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        return bool(select.select([pidfd], [], [], timeout)[0])
    finally:
        os.close(pidfd)


def run_shell(command: str, *, cwd: str | os.PathLike, timeout: float, cap: int = OUTPUT_CAP):
    """Run ``command``; returns (output, exit code), the exit code None when the timeout killed it."""
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so a timeout kills the children too
    )
    capture = _Capture(proc.stdout, keep=4 * cap)  # up to 4 bytes per character
    capture.start()
    if exited_within(proc, timeout):
        code = proc.wait()
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        code = None
    capture.join(timeout=5)  # a process that left the group may still hold the pipe
    if not capture.is_alive():
        proc.stdout.close()
    return capture.text(cap), code
