# memlab — common tasks. `make test` is what CI runs (.ci/run).
#
#   make install   create .venv (if missing) and install memlab with dev tools (once)
#   make lab       open the student notebooks in JupyterLab   (LAB_ARGS="--no-browser --port 8899")
#   make test      pytest + nbval over tests/, solutions/, notebooks/, then the drift check
#   make student   regenerate notebooks/ from solutions/
#   make solutions re-execute every solution notebook in place, then regenerate notebooks/
#   make lint      ruff

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# Re-installs only when pyproject.toml changes.
STAMP := $(VENV)/.installed
# Installed before everything else: with torch already present, sentence-transformers does
# not pull a multi-GB CUDA build. Must equal the pin in pyproject.toml (tests check this).
TORCH_PIN := torch==2.13.0

# Extra arguments for `make lab`, e.g. LAB_ARGS="--no-browser --ip 127.0.0.1 --port 8899".
LAB_ARGS ?=
# JupyterLab refuses to start as root without --allow-root (containers, CI).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

# Offline by construction: a model loaded by hub name must fail fast, not hang ~70 s.
TEST_ENV := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 MEMLAB_BACKEND=offline
# pytest stops with "file or directory not found" on a missing path, so pass only the
# notebook folders that exist (make_student --check still reports missing notebooks/).
NOTEBOOK_DIRS := $(wildcard solutions notebooks)

.PHONY: help venv install lab test student solutions lint

help:
	@sed -n '3,8p' Makefile | sed 's/^# //'

$(PY):
	@if command -v python3.11 >/dev/null 2>&1 && python3.11 -m venv $(VENV); then :; \
	else \
		echo "python3.11 not usable; falling back to python3 (memlab needs Python 3.11)"; \
		rm -rf $(VENV) && python3 -m venv $(VENV); \
	fi

venv: $(PY)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install '$(TORCH_PIN)'
	$(PY) -m pip install -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lab: install
	$(VENV)/bin/jupyter lab notebooks/ $(ROOT_FLAG) $(LAB_ARGS)

test: install
	$(TEST_ENV) $(PY) -m pytest --nbval --nbval-current-env \
		--nbval-sanitize-with tools/nbval_sanitize.cfg tests $(NOTEBOOK_DIRS)
	$(PY) tools/make_student.py --check

student: install
	$(PY) tools/make_student.py

solutions: install
	cd solutions && for nb in *.ipynb; do \
		$(TEST_ENV) ../$(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace "$$nb" || exit 1; \
	done
	$(PY) tools/make_student.py

lint: install
	$(VENV)/bin/ruff check memlab tests tools
