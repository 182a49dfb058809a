"""Kernels forked from a warm process, so a test run's hundred kernels import the SDK once.

Every notebook nbval checks starts a fresh kernel, and almost every first cell imports the SDK
(``import anthropic``: 2-3 s of CPU, ~3,400 modules) and loads the cl100k tokenizer (~0.7 s). In a
test run (``python -m compaction.course test``) a *warm* process imports those once and waits on a
Unix socket; the run's kernelspec (``python3``, found first through ``JUPYTER_PATH``) starts a small
launcher instead of ``ipykernel_launcher``, which hands the warm process its arguments, working
folder, environment and standard streams; the warm process forks, and the child becomes that kernel:
a fresh process with the modules already imported and nothing else shared. The launcher stands in
for the kernel towards Jupyter: it forwards signals (interrupt), exits with the kernel's exit code,
and when it is killed the warm process kills the kernel. The run binds the socket and hands it to
the warm process, so a launcher that comes while it still imports waits in the socket's queue (at
most ``STARTUP_SECONDS``) while the run goes on collecting its tests.

Without the warm process (its socket gone, not POSIX, a plain ``pytest`` or ``make lab``) the
launcher becomes ``python -m ipykernel_launcher`` itself, so a kernel is the same either way.
The package's modules the chapters import, matplotlib and ipykernel's debugger are imported ahead
too. matplotlib reads its backend from ``MPLBACKEND`` at import, which ipykernel sets to the inline
backend only in the kernel, so a forked kernel gets the backend it would have read (``MPLBACKEND``,
else inline). Never ipywidgets: it registers its comm target at import, and only inside a running
kernel can it; a warm process that finds it imported refuses to serve, and every kernel starts
ordinary.
Deliberately left out: a ``matplotlibrc`` in a notebook's folder (the course has none) is not read
again; the warm process serves one run only.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import importlib
import json
import os
import pkgutil
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

from compaction.core.tokens import encoding

VARIABLE = "COMPACTION_WARM_KERNELS"  # the warm process's socket, for the launchers
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
AHEAD = (  # what the kernels would import anyway: the SDK, ipykernel, the tokenizer, what chapters import
    "anthropic",
    "ipykernel.kernelapp",
    "tiktoken",
    "compaction.agent.compact_on_demand",
    "compaction.agent.loop",
    "compaction.agent.server_side",
    "compaction.course.exercises",
    "compaction.evaluate.compare",
    "compaction.evaluate.replay.engine",
    "compaction.importers",
    "compaction.evaluate.frontier",
    "compaction.levels.phases",
    "compaction.levels.session_map",
    "compaction.pipeline.compactor",
    "compaction.views.plots",
    "compaction.views.widgets",
    "matplotlib.pyplot",
)
CHECKS = "compaction.course.checks"  # each chapter's check module, all imported ahead
# ipykernel's debugger (debugpy, ~130 modules, ~0.12 s), which each kernel imports as it starts; imported
# ahead with pydevd's warning about frozen modules (for whoever debugs) left unprinted
DEBUGGER, QUIET_DEBUGGER = "ipykernel.debugger", {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}
KERNEL_SIDE = ("ipywidgets",)  # set up from inside a running kernel: never imported ahead
INLINE = "module://matplotlib_inline.backend_inline"  # ipykernel's backend when MPLBACKEND is unset
MAX_FOLDER = 80  # characters: the socket's folder, with "warm-xxxxxxxx/warm.sock", under the ~104 allowed
REQUEST_SECONDS = 5  # for a connected launcher to send its request
STARTUP_SECONDS = 60  # the warm process's imports; a launcher that waits longer starts an ordinary kernel


def available() -> bool:
    """Whether this platform can fork warm kernels (POSIX with Unix sockets)."""
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "CMSG_LEN")


def kernelspec(folder: Path) -> Path:
    """Write the run's ``python3`` kernelspec (ipykernel's own, the launcher as its command) under ``folder``.

    The folder to put first on JUPYTER_PATH. ipykernel's metadata comes along: its
    ``supported_encryption`` is what lets a kernel manager give the kernel CurveZMQ keys.
    """
    from ipykernel.kernelspec import write_kernel_spec

    spec = folder / "jupyter" / "kernels" / "python3"
    shutil.rmtree(spec, ignore_errors=True)
    spec.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "compaction.course.warm_kernels", "launch", "-f", "{connection_file}"]
    write_kernel_spec(spec, overrides={"argv": argv})
    return folder / "jupyter"


@contextlib.contextmanager
def warm_kernels(folder: Path, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """Start the warm process for one run; yield ``env`` with the kernelspec and socket set; stop it."""
    if not available():
        yield env
        return
    home = Path(tempfile.mkdtemp(prefix="warm-", dir=_short(folder)))
    path = home / "warm.sock"
    env = {**env, VARIABLE: str(path)}
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(kernelspec(folder)), env.get("JUPYTER_PATH")]))
    # the socket listens from here on: launchers queue while the warm process imports (seconds the
    # run spends collecting its tests), instead of the run waiting for it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(64)
    command = [
        sys.executable,
        "-m",
        "compaction.course.warm_kernels",
        "serve",
        str(path),
        str(listener.fileno()),
    ]
    with listener:
        warm = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, pass_fds=[listener.fileno()])
    try:
        yield env  # launchers that cannot reach the socket start an ordinary kernel
    finally:
        warm.terminate()
        try:
            warm.wait(timeout=10)
        except subprocess.TimeoutExpired:
            warm.kill()
            warm.wait()
        shutil.rmtree(home, ignore_errors=True)
    if warm.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL):  # it failed on its own
        print(f"warm kernels: the warm process stopped early (exit code {warm.returncode})")


def _short(folder: Path) -> Path:
    """``folder``, or the system's /tmp when a socket path in it would pass the ~100-byte Unix limit."""
    if len(str(folder)) < MAX_FOLDER or not Path("/tmp").is_dir():
        return folder
    return Path("/tmp")


# ---------------------------------------------------------------- the launcher (one per kernel)


def launch(args: list[str]) -> int:
    """Be the kernel ``args`` describes: forked by the warm process if it answers, else an ordinary one."""
    path = os.environ.get(VARIABLE)
    connection = _connect(path) if path else None
    if connection is None:
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *args])
    request = json.dumps({"args": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    fds = array.array("i", [0, 1, 2])
    connection.settimeout(STARTUP_SECONDS)  # queued while the warm process imports, but not forever
    lines = connection.makefile("r")
    try:
        connection.sendmsg(
            [struct.pack("!I", len(request)), request],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds.tobytes())],
        )
        answer = lines.readline()
    except OSError:  # it stopped before answering, or never did
        answer = ""
    connection.settimeout(None)
    if not answer.startswith("pid "):  # refused: an ordinary kernel, as if there were no warm process
        connection.close()
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *args])
    pid = int(answer.split()[1])
    for signum in FORWARDED:
        signal.signal(signum, lambda s, _frame: _forward(pid, s))
    for line in lines:
        if line.startswith("exit "):
            return int(line.split()[1])
    return 1  # the warm process went away: the kernel went with it


def _connect(path: str) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError:
        connection.close()
        return None
    return connection


def _forward(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


# ---------------------------------------------------------------- the warm process (one per run)


def serve(path: str, fd: int) -> None:
    """Import ``AHEAD``, then fork a kernel for each launcher queued on ``fd`` (``path``), until stopped."""
    listener = socket.socket(fileno=fd)
    try:
        _import_ahead()
    except BaseException:  # noqa: BLE001 - said, then gone at once: queued launchers go ordinary
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    chosen = selectors.DefaultSelector()
    chosen.register(listener, selectors.EVENT_READ)
    kernels: dict[int, socket.socket] = {}  # pid -> its launcher's connection
    try:
        while True:
            for key, _ in chosen.select(timeout=0.05):
                if key.fileobj is listener:
                    connection, _ = listener.accept()
                    pid = _fork_kernel(connection, [listener, chosen, *kernels.values()])
                    if pid is None:
                        connection.close()
                        continue
                    kernels[pid] = connection
                    chosen.register(connection, selectors.EVENT_READ, pid)
                elif not key.fileobj.recv(1):  # the launcher is gone (killed): so goes its kernel
                    chosen.unregister(key.fileobj)
                    _forward(key.data, signal.SIGKILL)
            _reap(kernels, chosen)
    finally:
        for pid in kernels:
            _forward(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.unlink(path)


def _reap(kernels: dict[int, socket.socket], chosen: selectors.BaseSelector) -> None:
    """Tell each finished kernel's launcher its exit code."""
    while kernels:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = kernels.pop(pid, None)
        if connection is None:
            continue
        with contextlib.suppress(OSError):
            code = os.waitstatus_to_exitcode(status)
            connection.sendall(f"exit {code if code >= 0 else 128 - code}\n".encode())
        with contextlib.suppress(KeyError, ValueError):
            chosen.unregister(connection)
        connection.close()


def _import_ahead() -> None:
    """Import what every kernel would, load cl100k and the SDK's HTTP stack; refuse ``KERNEL_SIDE``."""
    checks = importlib.import_module(CHECKS)
    for name in (*AHEAD, *(m.name for m in pkgutil.iter_modules(checks.__path__, CHECKS + "."))):
        importlib.import_module(name)
    os.environ.update(QUIET_DEBUGGER)  # read at the import; a kernel takes its launcher's environment
    importlib.import_module(DEBUGGER)
    encoding()  # cl100k, loaded once for every kernel
    backend = importlib.import_module("compaction.agent.backend")  # (not at the top: launchers stay light)
    backend.loopback_http_client().close()  # the SDK's HTTP stack, with the shared TLS context
    imported = [name for name in KERNEL_SIDE if name in sys.modules]
    if imported:
        names = ", ".join(imported)
        raise RuntimeError(f"{names} was imported ahead by a module of AHEAD: only a kernel may import it")


def _fork_kernel(connection: socket.socket, theirs: list) -> int | None:
    """Read one launcher's request and fork its kernel; the child's pid (None for a bad request).

    ``theirs``: what the warm process holds open (its socket, the other launchers' connections),
    closed in the child so a kernel keeps nothing of the others.
    """
    connection.settimeout(REQUEST_SECONDS)  # a launcher that never sends must not hold up the others
    try:
        head, fds = _receive(connection, 4)
        request = json.loads(_exactly(connection, struct.unpack("!I", head)[0]))
    except (OSError, ValueError, struct.error):
        return None
    connection.settimeout(None)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        connection.sendall(f"pid {pid}\n".encode())
        return pid
    for held in (*theirs, connection):
        with contextlib.suppress(OSError):
            held.close()
    _become_kernel(request, fds)  # never returns


def _receive(connection: socket.socket, size: int) -> tuple[bytes, list[int]]:
    space = socket.CMSG_LEN(3 * array.array("i").itemsize)
    data, ancillary, _, _ = connection.recvmsg(size, space)
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if len(fds) != 3:
        raise ValueError("a launcher sends its three standard streams")
    return data + _exactly(connection, size - len(data)), list(fds)


def _exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ValueError("the launcher hung up")
        data += chunk
    return data


def _become_kernel(request: dict, fds: list[int]) -> None:
    """In the forked child: take the launcher's streams, folder and environment, and run ipykernel."""
    code = 1
    try:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL if signum != signal.SIGINT else signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.setsid()  # its own group: a signal to the warm process's group never reaches it
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # found again from the kernel's own TMPDIR
        _backend_as_read_here()
        sys.argv = ["ipykernel_launcher", *request["args"]]
        if os.environ.get("JPY_PARENT_PID"):  # read at ipykernel's import, which was the warm process's
            sys.argv.append(f"--IPKernelApp.parent_handle={int(os.environ['JPY_PARENT_PID'])}")
        sys.path[0] = request["cwd"]  # as `python -m` puts the working folder first
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - the kernel's failure goes to its stderr, as an ordinary one's
        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _backend_as_read_here() -> None:
    """Give matplotlib, imported ahead, the backend it would have read at import in this kernel."""
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        matplotlib.rcParams["backend"] = os.environ.get("MPLBACKEND") or INLINE


def main(argv: list[str]) -> int:
    """``launch ARGS...`` (the kernelspec's command) or ``serve SOCKET`` (the warm process)."""
    if argv[:1] == ["launch"]:
        return launch(argv[1:])
    if len(argv) == 3 and argv[0] == "serve" and argv[2].isdigit():
        serve(argv[1], int(argv[2]))
        return 0
    print("usage: python -m compaction.course.warm_kernels launch -f CONNECTION_FILE | serve SOCKET FD")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
