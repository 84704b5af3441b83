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

.PHONY: demo test test-fast test-pymc6 lint bench docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m pymc_bnstruct.cli.demo

# The same job from the shell with the `bnstruct` command (docs/cli.md): data from a bundled
# network, order MCMC, the summary and a picture of the learned network against the truth.
DEMO_CLI := demo-cli
BNSTRUCT ?= $(VENV)/bin/bnstruct
.PHONY: demo-cli
demo-cli: $(STAMP)
	@mkdir -p $(DEMO_CLI)
	$(BNSTRUCT) sample asia --rows 1000 --seed 1 --out $(DEMO_CLI)/asia.csv
	$(BNSTRUCT) learn $(DEMO_CLI)/asia.csv --method order --max-parents 2 --chains 2 --draws 500 --tune 100 \
	  --moves-per-draw 20 --seed 2 --out $(DEMO_CLI)/order.nc --report $(DEMO_CLI)/report.html
	$(BNSTRUCT) summary $(DEMO_CLI)/order.nc --top 12
	$(BNSTRUCT) plot $(DEMO_CLI)/order.nc --kind network --truth asia --out $(DEMO_CLI)/network.png
	@echo "demo-cli wrote: $(DEMO_CLI)/asia.csv (data), $(DEMO_CLI)/order.nc (result)," \
	  "$(DEMO_CLI)/report.html (report), $(DEMO_CLI)/network.png (picture)"

# lint first: ruff (pyflakes, pycodestyle, import order, bugbear; pyproject.toml [tool.ruff])
lint: $(STAMP)
	$(VENV)/bin/ruff check .

# Two test lines, each under 10 minutes on 2 cores: the fast tests, then the long statistical
# checks (marked `slow`).
# Who runs what (markers set in tests/conftest.py): `kernel` marks the tests of the numba
# kernels that touch no PyMC, ArviZ or PyTensor (the modules in KERNEL_MODULES, less any test
# there whose own code names pymc, arviz, pytensor or calls learn / to_inference_data /
# summary). make test runs everything; make test-pymc6 runs the fast tests that are not
# `kernel` (the kernels are the same code on both lines; PyMC, ArviZ and PyTensor are what
# differ, and the fast tests cover every path through them; the `slow` statistical checks of
# the samplers' posteriors run once, in make test);
# make test-nojit runs only the `kernel` tests, as plain Python. `docs` marks the docs pages'
# and the examples' code (tests/test_docs.py): it calls the public API that the suite tests on
# both lines, so it runs once, in make test. `main_line` marks the longest tests of bns.learn's own logic (sizing,
# spaces, widening, the pool's Ctrl-C; tests/conftest.py MAIN_LINE_TESTS): once, in make test.
test: lint
	$(PY) -m pytest -q -m "not slow"
	$(PY) -m pytest -q -m slow

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

# The kernels' own fast tests with every kernel as plain Python (numba compiles nothing): the
# kernels must not depend on numba-only behaviour. jit_only tests (compiled behaviour, or too
# slow as plain Python) still run in `make test`.
.PHONY: test-nojit
test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -m "kernel and not slow and not jit_only" --durations=30

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
	$(PY6) -m pytest -q -m "not slow and not kernel and not docs and not main_line"

$(VENV)/.bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[test,bench]"
	touch $(VENV)/.bench

# the interop tests alone (pgmpy is in the test extra: make test runs its round trips too)
.PHONY: test-interop
test-interop: $(VENV)/.bench
	$(PY) -m pytest -q tests/test_interop.py

bench: $(VENV)/.bench
	$(PY) benchmarks/bench_scores.py
	$(PY) benchmarks/bench_search.py

.PHONY: bench-order bench-structure
bench-order: $(STAMP)
	$(PY) benchmarks/bench_order_mcmc.py

bench-structure: $(STAMP)
	$(PY) benchmarks/bench_structure_mcmc.py

# structure MCMC beside Gibby (BNSTRUCT_GIBBY=path of its binary; without it, ours alone)
.PHONY: bench-gibby
bench-gibby: $(STAMP)
	$(PY) benchmarks/bench_gibby.py

.PHONY: bench-samc bench-samc-error bench-exact bench-partition
bench-samc: $(STAMP)
	$(PY) benchmarks/bench_samc.py

# SAMC's max edge error on samc7 at 10^5, 10^6, 10^7 moves per chain, recorded graph vs every iteration
bench-samc-error: $(STAMP)
	$(PY) benchmarks/bench_samc.py --parts error

bench-exact: $(STAMP)
	$(PY) benchmarks/bench_exact.py

.PHONY: bench-brai bench-partition
bench-brai: $(STAMP)
	$(PY) benchmarks/bench_brai.py

bench-partition: $(STAMP)
	$(PY) benchmarks/bench_partition_mcmc.py

# The alarm mixing targets, met with parallel tempering (12 replicas; ~10 min on 2 cores)
.PHONY: bench-partition-tempered
bench-partition-tempered: $(STAMP)
	$(PY) benchmarks/bench_partition_mcmc.py --skip-rates --skip-child --temperatures 12 --draws 200 --tune 20

# The documentation site, tutorials executed, warnings as errors: docs/_build/html/index.html.
# No benchmark runs here: a tutorial that reports one reads its CSV (docs/data/).
$(VENV)/.docs: $(STAMP)
	$(PY) -m pip install --quiet -e ".[test,docs]"
	touch $(VENV)/.docs

docs: $(VENV)/.docs
	rm -rf docs/_build docs/api/generated
	PYTHONPATH=$(CURDIR) $(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "site: docs/_build/html/index.html"

clean:
	rm -rf $(VENV) $(VENV6) build *.egg-info .pytest_cache docs/_build docs/api/generated docs/jupyter_execute $(DEMO_CLI)
