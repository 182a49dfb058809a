"""Kernels forked from the warm process: the same kernel as an ordinary one, with the SDK imported.

Each test starts real kernels through the run's kernelspec, as nbval does.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

from compaction.course.warm_kernels import (
    INLINE,
    KERNEL_SIDE,
    VARIABLE,
    available,
    kernelspec,
    main,
    warm_kernels,
)

pytestmark = pytest.mark.skipif(not available(), reason="forking warm kernels needs POSIX")

PROBE = (
    "import json, os, sys, tempfile\n"
    "print(json.dumps({'warm': 'anthropic' in sys.modules, 'cwd': os.getcwd(), 'path0': sys.path[0],"
    " 'only_here': os.environ.get('ONLY_FOR_THIS_KERNEL'), 'tmp': tempfile.gettempdir(),"
    " 'pid': os.getpid()}))"
)


def run(kc, code: str, timeout: float = 60) -> tuple[str, dict]:
    """Execute ``code``; (its stdout, the reply's content)."""
    out = []
    reply = kc.execute_interactive(
        code, timeout=timeout, output_hook=lambda m: out.append(m["content"].get("text", ""))
    )
    return "".join(out), reply["content"]


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """This process's environment as a test run's: the run's kernelspec first, one warm process up."""
    # without tiktoken's cache variable the warm process asks tempfile for its folder, which a
    # kernel must not inherit (it has a TMPDIR of its own)
    base = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    with warm_kernels(tmp_path_factory.mktemp("run"), base) as env, pytest.MonkeyPatch.context() as patch:
        for name in ("JUPYTER_PATH", VARIABLE):
            patch.setenv(name, env[name])
        yield env


def start(cwd, **env):
    """A kernel through the ``python3`` kernelspec, as nbval starts one, with ``env`` added."""
    return start_new_kernel(kernel_name="python3", cwd=str(cwd), env={**os.environ, **env})


def probe(cwd, **env) -> dict:
    """Start a kernel, run ``PROBE`` in it, shut it down: what it saw."""
    km, kc = start(cwd, **env)
    try:
        return json.loads(run(kc, PROBE)[0])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_warm_kernel_has_the_sdk_imported_and_its_own_folder_environment_and_temp(kernel_env, tmp_path):
    folder = tmp_path / "chapter"
    folder.mkdir()
    seen = probe(folder, ONLY_FOR_THIS_KERNEL="yes", TMPDIR=str(folder))
    assert seen["warm"] is True, "the kernel imported the SDK itself: it was not forked warm"
    assert seen["cwd"] == str(folder) and seen["path0"] == str(folder)
    assert seen["only_here"] == "yes"
    assert seen["tmp"] == str(folder), "tempfile kept the warm process's folder"


def test_without_the_warm_process_the_launcher_is_an_ordinary_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(kernelspec(tmp_path)))
    monkeypatch.setenv(VARIABLE, str(tmp_path / "no-such.sock"))
    seen = probe(tmp_path)
    assert seen["warm"] is False and seen["cwd"] == str(tmp_path)


def drawn(cwd, **env) -> tuple[dict, list[str]]:
    """In a new kernel: what was imported ahead, matplotlib's backend, and what a plot displays."""
    km, kc = start(cwd, **env)
    try:
        seen = json.loads(run(kc, STATE)[0])
        shown = []
        kc.execute_interactive(
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()",
            timeout=60,
            output_hook=lambda m: shown.extend(m["content"].get("data", {})),
        )
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return seen, shown


STATE = (
    "import json, sys, matplotlib\n"
    f"print(json.dumps({{'ahead': sorted(set(sys.modules) & {set(KERNEL_SIDE)!r}),"
    " 'loop': 'compaction.agent.loop' in sys.modules, 'backend': matplotlib.get_backend()}))"
)


def test_a_warm_kernel_has_the_chapters_modules_and_draws_inline_as_an_ordinary_one(kernel_env, tmp_path):
    seen, shown = drawn(tmp_path)
    assert seen["ahead"] == [], f"imported before the kernel could set them up: {seen['ahead']}"
    assert seen["loop"] is True, "the package's modules were not imported ahead"
    assert seen["backend"] == INLINE
    assert "image/png" in shown, f"the plot was not drawn inline: {shown}"


def test_a_warm_kernel_takes_matplotlibs_backend_from_its_own_environment(kernel_env, tmp_path):
    seen, shown = drawn(tmp_path, MPLBACKEND="agg")
    assert seen["backend"] == "agg" and "image/png" not in shown


DEBUG_INFO = {"type": "request", "seq": 1, "command": "debugInfo", "arguments": {}}  # JupyterLab asks it


QUIET = (  # the debugger imported ahead, without the warning for whoever debugs
    "import sys\nfrom _pydevd_bundle.pydevd_constants import DISABLE_FILE_VALIDATION as quiet\n"
    "print('ipykernel.debugger' in sys.modules and quiet)"
)


def test_a_warm_kernels_debugger_imported_ahead_without_its_warning_still_answers(kernel_env, tmp_path):
    km, kc = start(tmp_path)
    try:
        printed, _ = run(kc, QUIET)
        asked = kc.session.msg("debug_request", DEBUG_INFO)
        kc.control_channel.send(asked)
        reply = kc.control_channel.get_msg(timeout=30)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert printed.strip() == "True", f"not imported ahead quietly: {printed!r}"
    assert reply["msg_type"] == "debug_reply" and reply["content"]["success"] is True, reply["content"]
    assert reply["content"]["body"]["isStarted"] is False


def answering(get, asked: str, msg_type: str | None = None) -> dict:
    """The first message ``get`` returns whose parent is the request ``asked`` (of ``msg_type``, if given)."""
    while True:
        message = get(timeout=30)
        if message["parent_header"].get("msg_id") == asked and msg_type in (None, message["msg_type"]):
            return message


def test_an_interrupt_reaches_the_forked_kernel(kernel_env, tmp_path):
    km, kc = start(tmp_path)
    try:
        asked = kc.execute("import time\nprint('asleep', flush=True)\ntime.sleep(60)")
        # the cell's own code is running (execute_input comes before it starts: an interrupt then lands
        # in ipykernel's machinery, on a loaded machine, and can cost the next cell its output)
        answering(kc.get_iopub_msg, asked, "stream")
        time.sleep(0.2)  # into its sleep
        km.interrupt_kernel()
        # skip any earlier reply still queued (kernel_info, on a loaded machine)
        reply = answering(kc.get_shell_msg, asked)["content"]
        # after an error ipykernel aborts the execute requests that reach it before its own "stop
        # aborting" message (kernelbase._abort_queues): one sent right after the reply can be one
        for _ in range(5):
            after, after_reply = run(kc, "print(6 * 7)")
            if after_reply["status"] != "aborted":
                break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
    assert after_reply["status"] == "ok", after_reply
    assert after.strip() == "42", "the kernel should live on after an interrupt"


def test_killing_the_launcher_kills_its_kernel_and_an_exit_code_comes_back(kernel_env, tmp_path):
    km, kc = start(tmp_path)
    pid = json.loads(run(kc, PROBE)[0])["pid"]
    kc.stop_channels()
    km.shutdown_kernel(now=True)  # SIGKILL to the launcher's group, never the kernel itself
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the kernel outlived its launcher"

    km, kc = start(tmp_path)
    kc.execute("import os; os._exit(3)")
    deadline = time.monotonic() + 10
    while km.provisioner.process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    kc.stop_channels()
    assert km.provisioner.process.returncode == 3
    km.cleanup_resources()


def test_a_launcher_that_connects_and_sends_nothing_holds_up_no_other_kernel(kernel_env, tmp_path):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(kernel_env[VARIABLE])
    try:
        seen = probe(tmp_path)
    finally:
        silent.close()
    assert seen["warm"] is True


def test_a_warm_process_that_stops_while_importing_leaves_ordinary_kernels(tmp_path, monkeypatch, capsys):
    # a module that imports a fake ipywidgets in every Python of this run: the warm process refuses
    # to serve, after the launcher below may already be queued on its socket
    site = tmp_path / "site"
    site.mkdir()
    (site / "ipywidgets.py").write_text("")
    (site / "sitecustomize.py").write_text("import ipywidgets\n")
    base = {**os.environ, "PYTHONPATH": str(site)}
    with warm_kernels(tmp_path / "run", base) as env:
        for name in ("JUPYTER_PATH", VARIABLE, "PYTHONPATH"):
            monkeypatch.setenv(name, env[name])
        seen = probe(tmp_path)
    assert seen["warm"] is False and seen["cwd"] == str(tmp_path)
    assert "the warm process stopped early (exit code 1)" in capsys.readouterr().out


def test_a_wrong_command_line_says_how_to_use_it(capsys):
    assert main(["serve"]) == 2
    assert "usage:" in capsys.readouterr().out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")  # Linux: a zombie (exited, not yet reaped) still answers kill(0)
    return not stat.exists() or stat.read_text().split(") ", 1)[1][0] != "Z"
