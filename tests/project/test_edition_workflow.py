"""The workflow that builds the rendered edition on every push and can publish it to GitHub Pages:
valid for GitHub, running the build the README names, and publishing only when the repository asks.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.project.test_workflow import lint

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "edition.yml"


def workflow() -> dict:
    """The workflow, parsed (YAML 1.1 reads the key ``on`` as True)."""
    parsed = yaml.safe_load(WORKFLOW.read_text())
    parsed["on"] = parsed.pop(True, parsed.get("on"))
    return parsed


def steps(job: str) -> list[dict]:
    return workflow()["jobs"][job]["steps"]


def test_the_workflow_is_valid_for_githubs_schema():
    result = lint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_builds_the_edition_on_every_push_with_the_readmes_command_and_uploads_it_for_pages():
    assert "push" in workflow()["on"] and "branches" not in (workflow()["on"]["push"] or {})
    runs = [step.get("run", "") for step in steps("build")]
    assert "make edition" in runs
    assert "make edition" in (ROOT / "README.md").read_text()
    upload = next(s for s in steps("build") if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    makefile = (ROOT / "Makefile").read_text()
    assert upload["with"]["path"] == "build/edition" and "compaction.course render" in makefile
    node = [s for s in steps("build") if s.get("uses", "").startswith("actions/setup-node@")]
    assert node, "npm fetches the widget renderer the pages load"


def test_only_the_deploy_job_may_write_pages_and_only_from_the_default_branch_when_asked():
    jobs = workflow()["jobs"]
    assert workflow()["permissions"] == {"contents": "read"}
    assert "permissions" not in jobs["build"]
    deploy = jobs["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write", "actions": "read"}
    assert "default_branch" in deploy["if"] and "vars.PUBLISH_EDITION == 'true'" in deploy["if"]
    assert deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
