"""Running notebooks as nbval does, and reading the check reports out of their outputs.

The kernel talks to us over TCP with CurveZMQ encryption when pyzmq has it (the kernel manager
provisions the keys: jupyter_client's ``KernelManager.transport_encryption``, "auto" uses them when
the kernelspec declares ``supported_encryption: curve``, as ipykernel's does), so ipykernel has no
reason to print "Kernel is running over TCP without encryption"; without Curve the kernel's log is
kept to errors instead. Temporary files go to the run's folder (``compaction.course.scratch``).
Deliberately left out: comparing outputs (nbval's job) and timing limits beyond one per cell.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import zmq
from nbclient import NotebookClient
from traitlets.config import Config

from compaction.course.checks import SUMMARY
from compaction.course.scratch import SAVED_RUN, run_folder, temp_env
from compaction.presentation.texts_ja import TEXTS

# the first line of a CheckReport's text/plain form, e.g. "PASS validate: 7/7 checks passed", in
# either language (the words after the counts: the English summary's and its Japanese text's)
_ENDINGS = (SUMMARY.split("{total}")[1], TEXTS[SUMMARY].split("{total}")[1])
REPORT_LINE = re.compile(rf"^(PASS|FAIL) .+: \d+/\d+(?:{'|'.join(map(re.escape, _ENDINGS))})$")
CELL_TIMEOUT = 120  # seconds one cell may run before execute/check give up


def quiet_kernel() -> tuple[Config, list[str]]:
    """The client config and kernel arguments that keep the kernel from warning about plain TCP."""
    if zmq.has("curve"):
        return Config({"KernelManager": {"transport_encryption": "auto"}}), []
    return Config(), ["--IPKernelApp.log_level=ERROR"]


def run_notebook(path: Path, *, allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute a notebook in its own folder (as nbval does) and return it with its outputs."""
    nb = nbformat.read(path, as_version=4)
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    config, arguments = quiet_kernel()
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name=kernel,
        allow_errors=allow_errors,
        record_timing=False,
        store_widget_state=True,  # in the metadata: what the rendered edition draws the widgets from
        resources={"metadata": {"path": str(path.resolve().parent)}},
        config=config,
        extra_arguments=arguments,
    )
    with run_folder() as folder:
        client.execute(env={**temp_env(folder), **SAVED_RUN})  # outputs the same on every machine
    return nb


def report_texts(nb: nbformat.NotebookNode) -> list[str]:
    """The whole text (summary line and rows) of every check report in a notebook's outputs, in order."""
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            text = output.get("data", {}).get("text/plain", "") if "data" in output else ""
            text = text if isinstance(text, str) else "".join(text)
            if REPORT_LINE.match(text.split("\n", 1)[0]):
                texts.append(text)
    return texts


def report_lines(nb: nbformat.NotebookNode) -> list[str]:
    """The summary line of every check report shown in a notebook's outputs, in order."""
    return [text.split("\n", 1)[0] for text in report_texts(nb)]


def report_rows(report_text: str) -> list[str]:
    """Every row of one report's text (pass and FAIL) after its verdict line, as the notebook shows them."""
    return [line.removeprefix("  ").rstrip() for line in report_text.split("\n")[1:] if line.strip()]


def failing_rows(report_text: str) -> list[str]:
    """The FAIL rows of one report's text, each naming its case and why."""
    return [line.strip() for line in report_text.split("\n")[1:] if line.strip().startswith("FAIL")]


def error_lines(nb: nbformat.NotebookNode) -> list[str]:
    """One line per unexpected error (cells tagged raises-exception are meant to fail)."""
    return [
        f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and "raises-exception" not in cell.metadata.get("tags", [])
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
