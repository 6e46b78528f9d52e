# Two commands on a fresh machine (README): `make demo` and `make test`.
# Each creates/updates .venv from the project's own files, with torch pinned to the CPU build.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BUILD_VENV := .venv-build
PATHS  ?= examples
TORCH  := torch==2.13.0

.PHONY: demo test install lint proto docs netns-demo dist dist-native

# The stream guard's per-block modules are compiled in place (setup.py, mypyc): a change to them
# rebuilds, or the compiled copies would shadow the edited sources.
COMPILED_SOURCES := setup.py $(wildcard plateau/stream/*.py)

$(STAMP): pyproject.toml Makefile $(COMPILED_SOURCES)
	@echo "make: installing into $(VENV): $(TORCH) (CPU build), sentence-transformers, the embedding model and Plateau with its dev"
	@echo "make: extras, about 1.9 GB; on a fresh machine this takes several minutes (most of it downloading), afterwards seconds."
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install "$(TORCH)" -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Start a Plateau server on loopback, replay runs through it over gRPC, print verdicts, stop.
## PATHS are checked before anything is installed: a missing one fails in one line.
demo:
	@for p in $(PATHS); do test -e "$$p" || { echo "make demo: PATHS: $$p does not exist (give case files, .traj files or folders of them, e.g. examples demo/runs)"; exit 2; }; done
	@$(MAKE) --no-print-directory $(STAMP)
	$(VENV)/bin/plateau demo $(PATHS)

## The whole test suite (real model, real gRPC server on loopback).
test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check plateau bench demo tests scripts
	$(VENV)/bin/mypy plateau

## The wheel and the sdist under dist/ (python -m build; a release workflow publishes them on a tag).
## The wheel is pure Python (py3-none-any, for any agent machine); the sdist compiles the stream
## guard's per-block modules where it is installed with a C compiler (setup.py).
dist:
	@echo "make dist: building the wheel and the sdist into dist/ (python -m build in $(BUILD_VENV), which holds only 'build')"
	test -x $(BUILD_VENV)/bin/python || $(PYTHON) -m venv $(BUILD_VENV)
	$(BUILD_VENV)/bin/python -m pip install --quiet "build>=1.2"
	rm -rf dist
	PLATEAU_PURE_PYTHON=1 $(BUILD_VENV)/bin/python -m build --outdir dist .

## A wheel for this machine's platform and Python with the stream guard's per-block modules
## compiled (mypyc; about 1.5 times faster per chunk than the pure wheel), under dist/native/.
## Tagged for this platform only (linux_x86_64, not manylinux): for local installs and private
## indexes; the release workflow builds manylinux, macOS and Windows wheels with cibuildwheel.
dist-native:
	@echo "make dist-native: building a compiled wheel for this platform into dist/native/ (python -m build in $(BUILD_VENV))"
	test -x $(BUILD_VENV)/bin/python || $(PYTHON) -m venv $(BUILD_VENV)
	$(BUILD_VENV)/bin/python -m pip install --quiet "build>=1.2"
	rm -rf dist/native
	$(BUILD_VENV)/bin/python -m build --wheel --outdir dist/native .

proto: $(STAMP)
	$(PY) scripts/gen_proto.py

## The API reference (HTML from the docstrings, pdoc) under docs/api/.
docs: $(STAMP)
	rm -rf docs/api && $(PY) scripts/gen_docs.py

## Two hosts on one machine (root): server and agent in two network namespaces.
netns-demo: $(STAMP)
	demo/run.sh
