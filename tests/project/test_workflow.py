"""The GitHub Actions workflow an instructor's fork runs: valid for GitHub, and it runs what the README says.

Validity is checked with check-jsonschema's copy of the GitHub-workflows schema from SchemaStore
(``--builtin-schema vendor.github-workflows``), which needs no network.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from packaging.specifiers import SpecifierSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "course.yml"
SCHEMA = "vendor.github-workflows"


def lint(*paths: Path) -> subprocess.CompletedProcess:
    """check-jsonschema's verdict on workflow files against GitHub's workflow schema (one start-up)."""
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", SCHEMA, *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def workflow() -> dict:
    """The workflow, parsed (YAML 1.1 reads the key ``on`` as True)."""
    parsed = yaml.safe_load(WORKFLOW.read_text())
    parsed["on"] = parsed.pop(True, parsed.get("on"))
    return parsed


def the_job() -> dict:
    jobs = workflow()["jobs"]
    assert len(jobs) == 1, f"one job expected, found {sorted(jobs)}"
    return next(iter(jobs.values()))


def run_lines(job: dict) -> list[str]:
    """Every shell line the job runs."""
    return [line.strip() for step in job["steps"] for line in step.get("run", "").splitlines()]


def supported_pythons() -> list[str]:
    """The Python versions pyproject.toml's classifiers list, oldest first."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    prefix = "Programming Language :: Python :: 3."
    minors = sorted(int(c.removeprefix(prefix)) for c in project["classifiers"] if c.startswith(prefix))
    versions = [f"3.{m}" for m in minors]
    requires = SpecifierSet(project["requires-python"])
    assert all(v in requires for v in versions), f"classifiers {versions} outside requires-python {requires}"
    return versions


def test_the_workflow_is_valid_for_githubs_schema_and_the_linter_rejects_one_github_would_refuse(tmp_path):
    broken = workflow()
    del next(iter(broken["jobs"].values()))["runs-on"]  # a job without a runner
    path = tmp_path / "broken.yml"
    path.write_text(yaml.safe_dump(broken))
    both = lint(WORKFLOW, path)  # check-jsonschema names every file that fails: here only the copy
    report = both.stdout + both.stderr
    assert both.returncode != 0
    assert f"{path}::$.jobs" in report and "'runs-on' is a required property" in report, report
    assert str(WORKFLOW) not in report, report  # neither a schema error nor a parse error in ours


def test_it_runs_on_push_and_pull_request():
    assert {"push", "pull_request"} <= set(workflow()["on"])


def test_it_runs_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme
    assert "make test" in run_lines(the_job())


def test_it_tests_the_oldest_and_the_newest_supported_python():
    versions = supported_pythons()
    job = the_job()
    assert job["strategy"]["matrix"]["python-version"] == [versions[0], versions[-1]]
    assert versions[0] == "3.10"
    assert "${{ matrix.python-version }}" in job["container"]["image"], "each job must use its matrix Python"


def test_it_installs_chromium_where_the_browser_test_looks_for_it():
    browser_test = (ROOT / "tests" / "views" / "test_browser.py").read_text()
    assert 'CHROMIUM = Path("/usr/bin/chromium")' in browser_test
    job = the_job()
    assert job["container"]["image"].endswith("-bookworm"), (
        "Debian's chromium package installs /usr/bin/chromium"
    )
    assert any(
        line.startswith("DEBIAN_FRONTEND=noninteractive apt-get install") and "chromium" in line
        for line in run_lines(job)
    )


def test_it_caches_pip_downloads_where_pip_puts_them():
    job = the_job()
    cache = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == job["env"]["PIP_CACHE_DIR"]
    assert "hashFiles('pyproject.toml')" in cache["with"]["key"]


def test_it_uploads_the_screenshots_and_the_notebook_diffs_even_when_the_tests_fail():
    job = the_job()
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()"
    assert upload["with"]["path"].rstrip("/") == ".artifacts"
    assert "${{ matrix.python-version }}" in upload["with"]["name"], "two jobs need two artifact names"
