"""No committed file, notebooks and their outputs included, holds anything shaped like an API key."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# an Anthropic key: "sk-ant-" then a kind such as "api03-" and a long url-safe body
KEY_SHAPE = re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}")


def committed_files() -> list[Path]:
    """The files git tracks in this checkout (staged ones included)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


def key_shaped(paths) -> list[str]:
    """'path:line' for each line that holds something shaped like an Anthropic API key."""
    found = []
    for path in paths:
        if not path.is_file():
            continue  # deleted in the working tree
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if KEY_SHAPE.search(line):
                shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{shown}:{number}")
    return found


def test_no_committed_file_holds_an_api_key():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of committed files")
    found = key_shaped(committed_files())
    assert found == [], f"remove these and rotate the key: {found}"


def test_a_key_in_a_notebook_output_is_found(tmp_path):
    fake = "sk-" + "ant-" + "api03-" + "x" * 40  # built at run time so this file stays clean
    (tmp_path / "leaky.ipynb").write_text('{"outputs": [{"text": "key=' + fake + '"}]}\n')
    (tmp_path / "clean.py").write_text("key = os.environ['ANTHROPIC_API_KEY']\n")
    found = key_shaped(sorted(tmp_path.iterdir()))
    assert len(found) == 1 and found[0].endswith("leaky.ipynb:1")


def test_a_prefix_alone_or_a_placeholder_is_not_a_key():
    assert not KEY_SHAPE.search("keys start with sk-ant- and are secret")
    assert not KEY_SHAPE.search("ANTHROPIC_API_KEY=sk-ant-...")
