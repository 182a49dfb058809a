# The course's two commands: `make lab` opens the course, `make test` checks every lesson.
# Needs only Python 3.10+ and make; everything else goes into .venv (created when missing).
# The install (the package with its course and test extras) runs again only when pyproject.toml
# changes (stamp file .venv/.installed). Both targets call `python -m compaction.course lab|test`,
# which work without make too (README).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LAB_ARGS ?=
# pytest processes for `make test` (WORKERS=1 runs everything in one; default: one more than the cores)
WORKERS ?=
# the edition `make lab` and `make binder` open: LANG=ja (or a Japanese locale, ja_JP.UTF-8) the Japanese one
EDITION := $(if $(filter ja%,$(LANG)),ja,en)
CHAPTER_00 := $(if $(filter ja,$(EDITION)),ja/notebooks,notebooks)/00_welcome.ipynb

.PHONY: help install lab test exercises edition edition-url binder

help:
	@echo "make lab        open the course in JupyterLab (LAB_ARGS=--no-browser to only serve it;"
	@echo "                LANG=ja opens the Japanese edition, ja/, with JupyterLab's own menus in Japanese)"
	@echo "make test       ruff, pytest and strict nbval over the notebooks and solutions of both editions (WORKERS=N)"
	@echo "make exercises  regenerate exercises/ from solutions/ (and ja/exercises/ from ja/solutions/)"
	@echo "make edition    build the static HTML edition of both languages in build/edition (open its index.html)"
	@echo "make binder     print the Binder link for this clone's GitHub remote (LANG=ja: the ja chapter 00)"
	@echo "make edition-url  print where the workflow publishes the rendered edition (GitHub Pages of the remote)"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "the course needs Python 3.10 or newer; set PYTHON=...")'
	@echo "==> creating $(VENV) with $$($(PYTHON) --version)"
	$(PYTHON) -m venv $(VENV)

# uv (from PyPI, into the venv) installs the same packages several times faster than pip; plain pip
# when uv cannot be had or fails. Neither is quiet: a first install downloads about 150 packages, and
# the terminal shows each download and the list of what was installed (README: the measured time).
# The editable install is a path in a .pth file (compat mode): the
# default import hook costs every Python start ~25 ms (kernels, the agent's commands, test processes).
# uv compiles the bytecode as pip does (--compile-bytecode): where PYTHONDONTWRITEBYTECODE is set no
# process could cache it, and each one that imports the SDK would compile it again (~1.8 s of CPU).
# install-overrides.txt says what uv leaves out, and why
EDITABLE := -e '.[course,test]' --config-settings editable_mode=compat
$(STAMP): pyproject.toml install-overrides.txt | $(BIN)/python
	@echo "==> installing the course with its course and test extras into $(VENV) (once, and again when pyproject.toml changes)"
	@start=$$(date +%s); \
	echo "==> uv, the installer, from PyPI with pip"; \
	if $(BIN)/python -m pip install --disable-pip-version-check uv \
	    && echo "==> the course and its dependencies, with uv" \
	    && $(BIN)/uv pip install --compile-bytecode --override install-overrides.txt --python $(BIN)/python $(EDITABLE); then :; \
	else echo "==> uv failed or is not available: installing with pip (slower)"; \
	    $(BIN)/python -m pip install --disable-pip-version-check $(EDITABLE) || exit 1; fi; \
	echo "==> installed in $$(( $$(date +%s) - start )) s"
	@touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	$(BIN)/python -m compaction.course lab --lang $(EDITION) $(LAB_ARGS)

test: $(STAMP)
	$(BIN)/python -m compaction.course test $(if $(WORKERS),--workers $(WORKERS))

exercises: $(STAMP)
	$(BIN)/python -m compaction.course build-exercises

# every chapter, exercise and solution as HTML with its saved outputs and widgets (compaction/course/render.py)
edition: $(STAMP)
	$(BIN)/python -m compaction.course render

# the Binder link and the published edition's address from this clone's own remote: both need the
# repository's GitHub path, which only git knows
GITHUB_PATH := git remote get-url origin 2>/dev/null | sed -nE 's\#^(https://github\.com/|git@github\.com:)([^/]+/[^/]+)$$\#\2\#p' | sed 's\#\.git$$\#\#'
binder:
	@url=$$(git remote get-url origin 2>/dev/null); path=$$($(GITHUB_PATH)); \
	if [ -z "$$url" ]; then echo "no git remote 'origin': push this repository to GitHub first"; \
	elif [ -z "$$path" ]; then echo "origin is not a GitHub repository ($$url): Binder needs one"; \
	else echo "https://mybinder.org/v2/gh/$$path/HEAD?urlpath=lab/tree/$(CHAPTER_00)"; fi

# where .github/workflows/edition.yml publishes the rendered edition (GitHub Pages of origin)
edition-url:
	@path=$$($(GITHUB_PATH)); \
	if [ -z "$$path" ]; then echo "origin is not a GitHub repository: make edition builds the edition here"; \
	else echo "https://$${path%%/*}.github.io/$${path#*/}/$(if $(filter ja,$(EDITION)),ja/,)"; fi
