# Quick start: `make demo`, `make test`.  Everything lives in .venv.
# Two supported lines: `make test` (python3 = 3.11, PyMC 5 / ArviZ 0.x, in .venv) and
# `make test-pymc6` (Python 3.12, PyMC 6 / ArviZ 1 / PyTensor 3, in .venv-pymc6).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# Second line. PYTHON312 may name the interpreter; otherwise the first that runs and is
# 3.12 of: python3.12 on PATH (a pyenv shim may exist without working), then pyenv's
# 3.12.x, newest first.
PYTHON312 ?=
VENV6  := .venv-pymc6
PY6    := $(VENV6)/bin/python
STAMP6 := $(VENV6)/.installed

.PHONY: demo test test-fast test-pymc6 lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m pymc_bnstruct.demo

# lint first: ruff (pyflakes, pycodestyle, import order, bugbear; pyproject.toml [tool.ruff])
lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: lint
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

$(PY6):
	@py="$(PYTHON312)"; \
	if [ -z "$$py" ]; then \
	  for p in $$(command -v python3.12 2>/dev/null) \
	           $$(ls -d $(HOME)/.pyenv/versions/3.12*/bin/python 2>/dev/null | sort -rV); do \
	    if "$$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then \
	      py="$$p"; break; \
	    fi; \
	  done; \
	fi; \
	if [ -z "$$py" ]; then \
	  echo "make test-pymc6: no Python 3.12 found (tried python3.12 on PATH and" \
	       "$(HOME)/.pyenv/versions/3.12*/bin/python); install one or run" \
	       "make test-pymc6 PYTHON312=/path/to/python3.12" >&2; \
	  exit 1; \
	fi; \
	echo "$(VENV6) from $$py"; \
	"$$py" -m venv $(VENV6)
	$(PY6) -m pip install --quiet --upgrade pip

$(STAMP6): pyproject.toml | $(PY6)
	$(PY6) -m pip install --quiet -e ".[test,pymc6]"
	touch $(STAMP6)

test-pymc6: $(STAMP6)
	$(VENV6)/bin/ruff check .
	$(PY6) -m pytest -q

$(VENV)/.bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[test,bench]"
	touch $(VENV)/.bench

bench: $(VENV)/.bench
	$(PY) benchmarks/bench_scores.py
	$(PY) benchmarks/bench_search.py

.PHONY: bench-order bench-structure
bench-order: $(STAMP)
	$(PY) benchmarks/bench_order_mcmc.py

bench-structure: $(STAMP)
	$(PY) benchmarks/bench_structure_mcmc.py

.PHONY: bench-samc bench-exact bench-partition
bench-samc: $(STAMP)
	$(PY) benchmarks/bench_samc.py

bench-exact: $(STAMP)
	$(PY) benchmarks/bench_exact.py

bench-partition: $(STAMP)
	$(PY) benchmarks/bench_partition_mcmc.py

clean:
	rm -rf $(VENV) $(VENV6) build *.egg-info .pytest_cache
