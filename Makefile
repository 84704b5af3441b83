# Quick start: `make demo`, `make test`.  Everything lives in .venv.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m pymc_bnstruct.demo

test: $(STAMP)
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

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

.PHONY: bench-samc
bench-samc: $(STAMP)
	$(PY) benchmarks/bench_samc.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
